//! Equivalent single-step methods SS2-SS4 ([Zhang2022, eqs. 4a-4e]).

use super::*;

/// SSk as a cascade of k-1 filters ([Zhang2022, eqs. 4a-4e]; \[MBDyn\] singlestepsol_impl.cc) with
/// auxiliary vectors W_1 (outermost, eq. 4a) ... W_{k-1} (innermost, eq. 4e), W_k := y':
///   y_n - y_{n-1} = h (gamma_0 W_1^n + (1 - gamma_0) W_1^{n-1}),
///   W_i^n = c_i W_i^{n-1} + d_i W_{i+1}^n + e_i W_{i+1}^{n-1},
///   c_i = -(1 - gamma_{2i-1})/gamma_{2i-1}, d_i = gamma_{2i}/gamma_{2i-1}, e_i = (1 - gamma_{2i})/gamma_{2i-1}.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleStep {
    pub gamma0: f64,
    /// Per filter i = 1..k-1 (index i-1): (gamma_{2i-1}, gamma_{2i}).
    pub gammas: Vec<(Complex<f64>, Complex<f64>)>,
    pub c: Vec<Complex<f64>>,
    pub d: Vec<Complex<f64>>,
    pub e: Vec<Complex<f64>>,
    /// D_i = d_i d_{i+1} ... d_{k-1}: dW_i^n / dy'_n.
    pub dw: Vec<Complex<f64>>,
}

impl SingleStep {
    /// The parameters of SSk, k in 2..=4, equivalent to LMSk ([Zhang2022, Sect. 2.2]):
    /// gamma_even = 1/(1+rho), gamma_{2i-1} = (1 + kappa_i (1-rho))/(1+rho), kappa_i the roots
    /// of 2 kappa - 1 (SS2), 6 kappa^2 - 3 kappa + 1 (SS3), 20 kappa^3 - 10 kappa^2 + 4 kappa - 1
    /// (SS4). The complex kappas go to the inner filters as in MBDyn (real ones outside).
    pub fn new(k: usize, rho: f64) -> SingleStep {
        let kappas: Vec<Complex<f64>> = match k {
            2 => vec![Complex::new(0.5, 0.0)],
            3 => {
                // 6 kappa^2 - 3 kappa + 1 = 0
                let im = (15.0f64).sqrt() / 12.0;
                vec![Complex::new(0.25, im), Complex::new(0.25, -im)]
            }
            4 => {
                // 20 kappa^3 - 10 kappa^2 + 4 kappa - 1 = 0: the real root by bisection (the
                // cubic is increasing: derivative 60k^2 - 20k + 4 > 0), then deflation
                // 20 (kappa - k1)(kappa^2 + p kappa + q).
                let f = |x: f64| poly(&[20.0, -10.0, 4.0, -1.0], x);
                let k1 = bisect(f, 0.0, 1.0);
                let p = -0.5 + k1;
                let q = 0.05 / k1;
                let re = -0.5 * p;
                let im = (q - re * re).sqrt();
                vec![Complex::new(k1, 0.0), Complex::new(re, im), Complex::new(re, -im)]
            }
            _ => panic!("SS{k} does not exist"),
        };
        let even = 1.0 / (1.0 + rho);
        let gammas: Vec<(Complex<f64>, Complex<f64>)> = kappas
            .iter()
            .map(|kappa| ((kappa.scale(1.0 - rho) + Complex::ONE).scale(1.0 / (1.0 + rho)), Complex::new(even, 0.0)))
            .collect();
        let c: Vec<Complex<f64>> = gammas.iter().map(|(go, _)| (Complex::<f64>::ONE - *go).scale(-1.0) / *go).collect();
        let d: Vec<Complex<f64>> = gammas.iter().map(|(go, ge)| *ge / *go).collect();
        let e: Vec<Complex<f64>> = gammas.iter().map(|(go, ge)| (Complex::<f64>::ONE - *ge) / *go).collect();
        let mut dw = vec![Complex::ONE; k - 1];
        let mut acc = Complex::ONE;
        for i in (0..k - 1).rev() {
            acc = d[i] * acc;
            dw[i] = acc;
        }
        SingleStep { gamma0: even, gammas, c, d, e, dw }
    }

    /// Number of auxiliary vectors (k - 1).
    pub fn filters(&self) -> usize {
        self.c.len()
    }

    /// dy_n/dy'_n = gamma_0 D_1 per unit step ([Zhang2022, Sect. 3.2]: gamma_0 gamma_2 .../(gamma_1 gamma_3 ...)).
    pub fn b0_per_h(&self) -> f64 {
        self.gamma0 * self.dw[0].re
    }
}
