//! Coefficients of the integrator suite of \[Zhang2022\], computed from their defining equations
//! ([Zhang2022, Sect. 2], \[Zhang2020\], \[KennedyCarpenter2019\], as implemented in \[MBDyn\]). Parameters that are roots of an
//! equation (gamma of MSSTC/MSSTH, the SS4 kappa) are solved here in f64, never copied as
//! truncated literals (MBDyn's MSSTC4 gamma literals are accurate to about 1e-13 only). Only the MSSTH4/MSSTH5 abscissae, which the
//! sources tabulate at rho_inf in {0, 0.1, ..., 1} without their criterion, are literals
//! (the tables of \[MBDyn\]; [Zhang2022, Sect. 2.3] modifies MSSTH's parameters of \[Zhang2020\]).
//!
//! Literals keep the digits of their source even beyond f64 precision, so they can be checked
//! against it.
#![allow(clippy::excessive_precision)]

use crate::linalg::solve_small;

// SS3 and SS4 have complex parameters ([Zhang2022, Sect. 2.2]): num-complex's type, re-exported
// by nalgebra.
use nalgebra::Complex;

/// The root of `f` in [lo, hi] by bisection to the last bit; `f(lo)` and `f(hi)` must differ
/// in sign (each caller's bracket holds exactly one root for every rho_inf in [0, 1]; the
/// brackets were checked against all real roots of the equations).
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let mut flo = f(lo);
    let fhi = f(hi);
    if flo == 0.0 {
        return lo;
    }
    if fhi == 0.0 {
        return hi;
    }
    debug_assert!(flo.signum() != fhi.signum(), "no sign change in [{lo}, {hi}]");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let fm = f(mid);
        if fm == 0.0 {
            return mid;
        }
        if fm.signum() == flo.signum() {
            lo = mid;
            flo = fm;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Compensated Horner evaluation (Graillat, Langlois & Louvet 2005) of a polynomial with
/// coefficients from the highest degree down: returns (s, e) with s + e as accurate as Horner
/// in twice the working precision. The gamma equations of MSSTC4/5 cancel heavily near their
/// roots (relative condition ~3e3), so plain Horner would leave gamma uncertain at ~1e-13.
fn poly_dd(c: &[f64], x: f64) -> (f64, f64) {
    let (mut s, mut err) = (c[0], 0.0);
    for &a in &c[1..] {
        // TwoProd by FMA and TwoSum (Knuth): exact error terms of s * x + a.
        let p = s * x;
        let pe = s.mul_add(x, -p);
        let (t, se) = two_sum(p, a);
        s = t;
        err = err * x + (pe + se);
    }
    (s, err)
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let z = s - a;
    (s, (a - (s - z)) + (b - z))
}

/// sum_k rho^k P_k(x) in double-double for polynomials P_k with integer (exactly
/// representable) coefficients: the equations' rho-dependent coefficients are never rounded
/// (e.g. -192 rho - 2731200 in the MSSTC5 equation would lose ~1e-16 relative, which the
/// root amplifies to ~1e-12).
fn poly_rho_dd(p: &[&[f64]], rho: f64, x: f64) -> (f64, f64) {
    p.iter().rev().fold((0.0, 0.0), |(ah, al), c| {
        let (ph, pl) = poly_dd(c, x);
        let m = ah * rho;
        let me = ah.mul_add(rho, -m) + al * rho;
        let (s, se) = two_sum(m, ph);
        (s, se + me + pl)
    })
}

fn poly_rho(p: &[&[f64]], rho: f64, x: f64) -> f64 {
    let (h, l) = poly_rho_dd(p, rho, x);
    h + l
}

fn poly(c: &[f64], x: f64) -> f64 {
    let (h, l) = poly_dd(c, x);
    h + l
}

mod esdirk;
mod mssth_tables;
mod multistep;
mod single_step;
#[cfg(test)]
mod tests;

pub use esdirk::*;
pub use mssth_tables::*;
pub use multistep::*;
pub use single_step::*;
