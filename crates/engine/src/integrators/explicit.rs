//! Explicit Runge-Kutta methods of the minimal-coordinate ODEs (state-space and semirecursive
//! formulations): the classical fourth-order method
//! \[HairerNorsettWanner1993, Sect. II.1, Table 1.2\], Dormand and Prince's 5(4) pair
//! \[DormandPrince1980\] (\[HairerNorsettWanner1993, Sect. II.5, Table 5.2\]) and DOP853, the 8(5,3)
//! method of \[HairerNorsettWanner1993, Sect. II.10\] (coefficients of Prince and Dormand's
//! eighth-order pair with Hairer and Wanner's error estimators, as that section defines them).
//!
//! The tableaux are lower-triangular A (row i has i entries), weights b, abscissae c and
//! error weights: e = b - b^ of the embedded solution (DOPRI5), or for DOP853 the fifth-order
//! estimator e5 and the third-order one e3, combined as err = e5^2 / sqrt(e5^2 + 0.01 e3^2)
//! in the tolerance-weighted norms \[HairerNorsettWanner1993, Sect. II.10\].
//!
//! Literals keep the digits of their source even beyond f64 precision.
#![allow(clippy::excessive_precision)]

use super::dense::{self, Continuous};
use mbfmu_model::format::Method;

/// An explicit Runge-Kutta method with optional embedded error estimators.
#[derive(Debug)]
pub struct Explicit {
    pub c: &'static [f64],
    /// Row i (stage i, from 0) holds a_i0 .. a_i,i-1.
    pub a: &'static [&'static [f64]],
    pub b: &'static [f64],
    /// Weights of the local error estimate (b - b^), one per stage; empty at constant step.
    pub e: &'static [f64],
    /// DOP853's third-order estimator b - b^^; empty otherwise.
    pub e3: &'static [f64],
    /// The last stage is evaluated at the new point (first same as last): no extra evaluation.
    pub fsal: bool,
    /// The exponent of the step-size controller, 1 / (q + 1) with q the error estimate's order
    /// (unused at constant step).
    pub exponent: f64,
    /// Where the stability domain meets the negative real axis, |h lambda| (the boundary the
    /// stiffness test compares h times its estimate of the Jacobian's dominant eigenvalue
    /// with, \[HairerWanner1996, Sect. IV.2\]).
    pub stability_boundary: f64,
    /// The continuous extension (dense output) of the pair, where it has one.
    pub dense: Option<&'static Continuous>,
}

impl Explicit {
    pub fn stages(&self) -> usize {
        self.c.len()
    }
}

/// The tableau of an explicit method of the state-space formulation; None for the others.
pub fn of(method: Method) -> Option<&'static Explicit> {
    match method {
        Method::Rk4 => Some(&RK4),
        Method::Dopri5 => Some(&DOPRI5),
        Method::Dop853 => Some(&DOP853),
        _ => None,
    }
}

/// DOP853's error from its fifth- and third-order estimates (each a tolerance-weighted norm):
/// err5^2 / sqrt(err5^2 + 0.01 err3^2) \[HairerNorsettWanner1993, Sect. II.10\].
pub fn dop853_error(fifth: f64, third: f64) -> f64 {
    let denominator = (fifth * fifth + 0.01 * third * third).sqrt();
    if denominator > 0.0 {
        fifth * fifth / denominator
    } else {
        0.0
    }
}

/// Most stages of any method here (DOP853).
pub const MAX_STAGES: usize = 12;

/// Classical RK4 \[HairerNorsettWanner1993, Sect. II.1, Table 1.2, left\].
pub const RK4: Explicit = Explicit {
    c: &[0.0, 0.5, 0.5, 1.0],
    a: &[&[], &[0.5], &[0.0, 0.5], &[0.0, 0.0, 1.0]],
    b: &[1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0],
    e: &[],
    e3: &[],
    fsal: false,
    exponent: 0.0,
    stability_boundary: 2.785,
    dense: None,
};

/// DOPRI5 \[DormandPrince1980\], \[HairerNorsettWanner1993, Sect. II.5, Table 5.2\]: the
/// fifth-order solution is propagated (local extrapolation), the seventh stage is the new point.
pub const DOPRI5: Explicit = Explicit {
    c: &[0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0],
    a: &[
        &[],
        &[1.0 / 5.0],
        &[3.0 / 40.0, 9.0 / 40.0],
        &[44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0],
        &[19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0],
        &[9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0],
        &[35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0],
    ],
    b: &[35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0.0],
    e: &[71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0],
    e3: &[],
    fsal: true,
    exponent: 1.0 / 5.0,
    stability_boundary: 3.31,
    dense: Some(&dense::DOPRI5),
};

const B853: [f64; 12] = [
    5.42937341165687622380535766363e-2,
    0.0,
    0.0,
    0.0,
    0.0,
    4.45031289275240888144113950566e0,
    1.89151789931450038304281599044e0,
    -5.8012039600105847814672114227e0,
    3.1116436695781989440891606237e-1,
    -1.52160949662516078556178806805e-1,
    2.01365400804030348374776537501e-1,
    4.47106157277725905176885569043e-2,
];
/// The third-order weights b^^ of DOP853's second estimator (stages 1, 9 and 12).
const BHH853: [f64; 3] =
    [0.244094488188976377952755905512e+00, 0.733846688281611857341361741547e+00, 0.220588235294117647058823529412e-01];

/// DOP853 \[HairerNorsettWanner1993, Sect. II.10\]: twelve stages, the last at c = 1; the new
/// point is evaluated after the step (it is the next step's first stage).
pub const DOP853: Explicit = Explicit {
    c: &[
        0.0,
        0.526001519587677318785587544488e-01,
        0.789002279381515978178381316732e-01,
        0.118350341907227396726757197510e+00,
        0.281649658092772603273242802490e+00,
        0.333333333333333333333333333333e+00,
        0.25e+00,
        0.307692307692307692307692307692e+00,
        0.651282051282051282051282051282e+00,
        0.6e+00,
        0.857142857142857142857142857142e+00,
        1.0,
    ],
    a: &[
        &[],
        &[5.26001519587677318785587544488e-2],
        &[1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2],
        &[2.95875854768068491816892993775e-2, 0.0, 8.87627564304205475450678981324e-2],
        &[
            2.41365134159266685502369798665e-1,
            0.0,
            -8.84549479328286085344864962717e-1,
            9.24834003261792003115737966543e-1,
        ],
        &[
            3.7037037037037037037037037037e-2,
            0.0,
            0.0,
            1.70828608729473871279604482173e-1,
            1.25467687566822425016691814123e-1,
        ],
        &[
            3.7109375e-2,
            0.0,
            0.0,
            1.70252211019544039314978060272e-1,
            6.02165389804559606850219397283e-2,
            -1.7578125e-2,
        ],
        &[
            3.70920001185047927108779319836e-2,
            0.0,
            0.0,
            1.70383925712239993810214054705e-1,
            1.07262030446373284651809199168e-1,
            -1.53194377486244017527936158236e-2,
            8.27378916381402288758473766002e-3,
        ],
        &[
            6.24110958716075717114429577812e-1,
            0.0,
            0.0,
            -3.36089262944694129406857109825e0,
            -8.68219346841726006818189891453e-1,
            2.75920996994467083049415600797e1,
            2.01540675504778934086186788979e1,
            -4.34898841810699588477366255144e1,
        ],
        &[
            4.77662536438264365890433908527e-1,
            0.0,
            0.0,
            -2.48811461997166764192642586468e0,
            -5.90290826836842996371446475743e-1,
            2.12300514481811942347288949897e1,
            1.52792336328824235832596922938e1,
            -3.32882109689848629194453265587e1,
            -2.03312017085086261358222928593e-2,
        ],
        &[
            -9.3714243008598732571704021658e-1,
            0.0,
            0.0,
            5.18637242884406370830023853209e0,
            1.09143734899672957818500254654e0,
            -8.14978701074692612513997267357e0,
            -1.85200656599969598641566180701e1,
            2.27394870993505042818970056734e1,
            2.49360555267965238987089396762e0,
            -3.0467644718982195003823669022e0,
        ],
        &[
            2.27331014751653820792359768449e0,
            0.0,
            0.0,
            -1.05344954667372501984066689879e1,
            -2.00087205822486249909675718444e0,
            -1.79589318631187989172765950534e1,
            2.79488845294199600508499808837e1,
            -2.85899827713502369474065508674e0,
            -8.87285693353062954433549289258e0,
            1.23605671757943030647266201528e1,
            6.43392746015763530355970484046e-1,
        ],
    ],
    b: &B853,
    e: &[
        0.1312004499419488073250102996e-01,
        0.0,
        0.0,
        0.0,
        0.0,
        -0.1225156446376204440720569753e+01,
        -0.4957589496572501915214079952e+00,
        0.1664377182454986536961530415e+01,
        -0.3503288487499736816886487290e+00,
        0.3341791187130174790297318841e+00,
        0.8192320648511571246570742613e-01,
        -0.2235530786388629525884427845e-01,
    ],
    e3: &[
        B853[0] - BHH853[0],
        0.0,
        0.0,
        0.0,
        0.0,
        B853[5],
        B853[6],
        B853[7],
        B853[8] - BHH853[1],
        B853[9],
        B853[10],
        B853[11] - BHH853[2],
    ],
    fsal: false,
    exponent: 1.0 / 8.0,
    stability_boundary: 6.39,
    dense: Some(&dense::DOP853),
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The order conditions of the bushy and tall trees up to `order`
    /// \[HairerNorsettWanner1993, Sect. II.2\]: sum b_i c_i^(k-1) = 1/k and
    /// sum b_i a_ij c_j^(k-2) = 1/(k (k-1)), with c_i = sum_j a_ij.
    fn check(m: &Explicit, order: u32, tolerance: f64) {
        let s = m.stages();
        assert_eq!((m.a.len(), m.b.len()), (s, s));
        for (i, row) in m.a.iter().enumerate() {
            assert_eq!(row.len(), i);
            let sum: f64 = row.iter().sum();
            assert!((sum - m.c[i]).abs() < tolerance, "row {i}: sum {sum} vs c {}", m.c[i]);
        }
        for k in 1..=order as i32 {
            let bushy: f64 = (0..s).map(|i| m.b[i] * m.c[i].powi(k - 1)).sum();
            assert!((bushy - 1.0 / k as f64).abs() < tolerance, "order {k}: sum b c^(k-1) = {bushy}");
            if k >= 2 {
                let tall: f64 =
                    (0..s).map(|i| m.b[i] * (0..i).map(|j| m.a[i][j] * m.c[j].powi(k - 2)).sum::<f64>()).sum();
                let want = 1.0 / (k * (k - 1)) as f64;
                assert!((tall - want).abs() < tolerance, "order {k}: sum b a c^(k-2) = {tall} vs {want}");
            }
        }
    }

    #[test]
    fn tableaux_satisfy_their_order_conditions() {
        check(&RK4, 4, 1e-15);
        check(&DOPRI5, 5, 1e-15);
        check(&DOP853, 8, 1e-13);
        // The embedded solutions are consistent: their weights sum to one as b's do, so the
        // error weights sum to zero, and they are exact for linear functions of t.
        for e in [DOPRI5.e, DOP853.e, DOP853.e3] {
            assert!(e.iter().sum::<f64>().abs() < 1e-13, "{e:?}");
        }
        assert_eq!(DOPRI5.a[6], &DOPRI5.b[..6], "DOPRI5's last stage is the new point");
        assert!(DOPRI5.e.len() == DOPRI5.stages() && DOP853.e.len() == 12 && DOP853.e3.len() == 12);
        assert!([RK4.stages(), DOPRI5.stages(), DOP853.stages()].iter().all(|&s| s <= MAX_STAGES));
    }

    /// Order conditions a wrong digit in the middle of DOP853 would break: the trees
    /// sum b_i c_i a_ij c_j^k and sum b_i a_ij a_jk c_k^m of order up to 8.
    #[test]
    fn dop853_meets_mixed_order_conditions() {
        let m = &DOP853;
        let s = m.stages();
        let ac = |i: usize, p: i32| (0..i).map(|j| m.a[i][j] * m.c[j].powi(p)).sum::<f64>();
        for p in 0..=5 {
            // sum b_i c_i a_ij c_j^p = 1 / ((p + 1) (p + 3)).
            let v: f64 = (0..s).map(|i| m.b[i] * m.c[i] * ac(i, p)).sum();
            let want = 1.0 / ((p + 1) * (p + 3)) as f64;
            assert!((v - want).abs() < 1e-12, "p = {p}: {v} vs {want}");
            // sum b_i a_ij a_jk c_k^p = 1 / ((p + 1) (p + 2) (p + 3)).
            let v: f64 = (0..s).map(|i| m.b[i] * (0..i).map(|j| m.a[i][j] * ac(j, p)).sum::<f64>()).sum();
            let want = 1.0 / ((p + 1) * (p + 2) * (p + 3)) as f64;
            assert!((v - want).abs() < 1e-12, "p = {p}: {v} vs {want}");
        }
    }

    /// The stability function R(z) = 1 + z b^T (I - z A)^-1 1 of an explicit tableau, by
    /// forward substitution (A is strictly lower triangular) \[HairerWanner1996, Sect. IV.2\].
    fn stability(m: &Explicit, z: f64) -> f64 {
        let s = m.stages();
        let mut g = vec![0.0; s];
        for i in 0..s {
            g[i] = 1.0 + z * (0..i).map(|j| m.a[i][j] * g[j]).sum::<f64>();
        }
        1.0 + z * (0..s).map(|i| m.b[i] * g[i]).sum::<f64>()
    }

    /// The stiffness test's boundaries are where each method's stability domain meets the
    /// negative real axis: |R(-0.99 B)| < 1 < |R(-1.01 B)|.
    #[test]
    fn stability_boundaries_are_where_the_domains_end_on_the_real_axis() {
        for m in [&RK4, &DOPRI5, &DOP853] {
            let b = m.stability_boundary;
            let (inside, outside) = (stability(m, -0.99 * b).abs(), stability(m, -1.01 * b).abs());
            assert!(inside < 1.0 && outside > 1.0, "boundary {b}: |R| = {inside} inside, {outside} outside");
        }
    }
}
