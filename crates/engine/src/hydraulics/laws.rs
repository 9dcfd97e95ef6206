//! Component laws of the lumped-fluid circuit ([Jaiswal2021, Sect. 3]).

use mbfmu_model::format::SealFriction;

/// sgn(dp) sqrt|dp| of the semiempirical orifice law ([Jaiswal2021, eqs. 24, 26]), replaced below
/// `laminar` by the linear (laminar) law dp / sqrt(laminar), which meets it continuously at
/// |dp| = laminar ([Jaiswal2021, Sect. 3.1]: "less than 2 bar ... a linear relation").
pub fn orifice(dp: f64, laminar: f64) -> f64 {
    if dp.abs() >= laminar {
        dp.signum() * dp.abs().sqrt()
    } else {
        dp / laminar.sqrt()
    }
}

/// d/d(dp) of [`orifice`]: 1/(2 sqrt|dp|) above the laminar limit, 1/sqrt(laminar) below.
pub fn orifice_slope(dp: f64, laminar: f64) -> f64 {
    if dp.abs() >= laminar {
        0.5 / dp.abs().sqrt()
    } else {
        1.0 / laminar.sqrt()
    }
}

/// Seal friction F_mu(v) of the LUT group's crane code (\[DeepMechDyn\]):
/// F_c tanh(4 v/v_s) + (F_s - F_c) (v/v_s) / ((v/v_s)^2/4 + 3/4)^2 + sigma v.
/// Smooth and odd; zero at rest (\[Jaiswal2021\] neglects friction in the static start). The
/// group's code multiplies the viscous term by the constant tanh(4) = 0.99933, absorbed in sigma.
pub fn seal_friction(f: &SealFriction, v: f64) -> f64 {
    let x = v / f.stribeck_velocity;
    let q = 0.25 * x * x + 0.75;
    f.coulomb * (4.0 * x).tanh() + (f.static_friction - f.coulomb) * x / (q * q) + f.viscous * v
}

/// dF_mu/dv of [`seal_friction`].
pub fn seal_friction_slope(f: &SealFriction, v: f64) -> f64 {
    let x = v / f.stribeck_velocity;
    let q = 0.25 * x * x + 0.75;
    let th = (4.0 * x).tanh();
    (4.0 * f.coulomb * (1.0 - th * th) + (f.static_friction - f.coulomb) * (q - x * x) / (q * q * q))
        / f.stribeck_velocity
        + f.viscous
}

/// One trapezoidal step of the spool law U' = (U_ref - U)/tau ([Jaiswal2021, eq. 27]) with U_ref
/// held at `reference` over the step: U1 = U0 + dt/2 ((c - U0)/tau + (c - U1)/tau), solved
/// for U1 (the equation is linear and decoupled, so this is what Newton converges to).
pub fn spool_step(u0: f64, reference: f64, tau: f64, dt: f64) -> f64 {
    let a = 0.5 * dt / tau;
    (u0 * (1.0 - a) + 2.0 * a * reference) / (1.0 + a)
}

/// The spool law U' = (U_ref - U)/tau [Jaiswal2021, eq. 27] solved exactly over `dt` with U_ref
/// held at `reference`: U1 = U_ref + (U0 - U_ref) exp(-dt/tau). Exact for a reference held over
/// the step, so a method of any order that carries the spool's value keeps its order.
pub fn spool_exact(u0: f64, reference: f64, tau: f64, dt: f64) -> f64 {
    reference + (u0 - reference) * (-dt / tau).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orifice_law_is_continuous_and_odd_at_the_laminar_limit() {
        let lam = 2e5;
        for &dp in &[lam, 2.0 * lam, 1e3, 3.7e6] {
            assert_eq!(orifice(-dp, lam), -orifice(dp, lam));
        }
        let below = orifice(lam * (1.0 - 1e-12), lam);
        let above = orifice(lam, lam);
        assert!((below - above).abs() < 1e-9 * above, "{below} vs {above}");
        assert!((orifice(4e6, lam) - 2000.0).abs() < 1e-9);
        assert_eq!(orifice(0.0, lam), 0.0);
    }

    #[test]
    fn seal_friction_peaks_near_the_breakaway_force_at_the_stribeck_velocity() {
        let f = SealFriction { coulomb: 210.0, static_friction: 300.0, viscous: 330.0, stribeck_velocity: 5e-3 };
        assert_eq!(seal_friction(&f, 0.0), 0.0);
        // At v = v_s: F_c tanh 4 + (F_s - F_c) + sigma v_s.
        let at_vs = seal_friction(&f, 5e-3);
        assert!((at_vs - (210.0 * 4f64.tanh() + 90.0 + 330.0 * 5e-3)).abs() < 1e-9);
        // Fast sliding: Coulomb plus viscous.
        let fast = seal_friction(&f, 1.0);
        assert!((fast - (210.0 + 330.0)).abs() < 0.01, "{fast}");
        assert_eq!(seal_friction(&f, -0.01), -seal_friction(&f, 0.01));
    }

    #[test]
    fn spool_step_is_the_trapezoidal_rule_and_reaches_the_reference() {
        let (tau, dt) = (4.547e-3, 1e-3);
        let u1 = spool_step(0.0, 10.0, tau, dt);
        // U1 = U0 + dt/2 (f0 + f1).
        assert!((u1 - (0.0 + 0.5 * dt * ((10.0 - 0.0) / tau + (10.0 - u1) / tau))).abs() < 1e-12);
        let mut u = 0.0;
        for _ in 0..200 {
            u = spool_step(u, 10.0, tau, dt);
        }
        assert!((u - 10.0).abs() < 1e-9);
    }
}
