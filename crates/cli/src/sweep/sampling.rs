//! Seeded random draws for `sweep --samples`. The formulas are spelled out (rather than taken
//! from a distributions crate) because the Python package (python/mbfmu_sweep/plan.py) must
//! draw the very same numbers: SplitMix64 words, 53-bit uniforms, Box-Muller normals.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::SplitMix64;

/// A stream of draws; each parameter set takes its draws in parameter order, so the first k
/// sets of N samples are the k sets of k samples with the same seed.
pub struct Draws(SplitMix64);

impl Draws {
    /// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
    /// OOPSLA 2014, DOI 10.1145/2660193.2660195) started from state `seed`.
    pub fn new(seed: u64) -> Draws {
        Draws(SplitMix64::seed_from_u64(seed))
    }

    /// Uniform on [0, 1): the top 53 bits of the next word times 2^-53, so every double of
    /// the form k 2^-53 is equally likely.
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform on [low, high].
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.unit()
    }

    /// Normal with mean and standard deviation sd by the Box-Muller transform (Box and
    /// Muller, "A note on the generation of random normal deviates", Ann. Math. Statist.
    /// 29(2), 1958, DOI 10.1214/aoms/1177706645): z = sqrt(-2 ln u1) cos(2 pi u2), with
    /// u1 = 1 - unit in (0, 1] so that the logarithm is finite. Uses two words per draw.
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        mean + sd * ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_words_are_the_published_sequence() {
        // The first outputs of splitmix64 from state 0 (the reference implementation by
        // S. Vigna, as listed in many test suites).
        let mut g = SplitMix64::seed_from_u64(0);
        assert_eq!(g.next_u64(), 0xe220a8397b1dcdaf);
        assert_eq!(g.next_u64(), 0x6e789e6aa1b965f4);
    }

    #[test]
    fn uniform_and_normal_have_the_moments_of_their_laws() {
        let n = 200_000;
        let mut d = Draws::new(7);
        let u: Vec<f64> = (0..n).map(|_| d.uniform(2.0, 5.0)).collect();
        let mean = u.iter().sum::<f64>() / n as f64;
        let var = u.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        // Uniform on [a, b]: mean (a + b)/2, variance (b - a)^2 / 12; tolerances ~ 5 sigma.
        assert!((mean - 3.5).abs() < 5.0 * (0.75f64 / n as f64).sqrt(), "{mean}");
        assert!((var - 0.75).abs() < 0.01, "{var}");
        assert!(u.iter().all(|x| (2.0..=5.0).contains(x)));
        let z: Vec<f64> = (0..n).map(|_| d.normal(1.0, 2.0)).collect();
        let mean = z.iter().sum::<f64>() / n as f64;
        let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        let within_one_sd = z.iter().filter(|x| (*x - 1.0).abs() < 2.0).count() as f64 / n as f64;
        assert!((mean - 1.0).abs() < 5.0 * 2.0 / (n as f64).sqrt(), "{mean}");
        assert!((var - 4.0).abs() < 0.06, "{var}");
        // P(|Z| < 1) = erf(1 / sqrt 2) = 0.682689...
        assert!((within_one_sd - 0.682_689).abs() < 0.005, "{within_one_sd}");
    }

    #[test]
    fn the_same_seed_gives_the_same_draws() {
        let (mut a, mut b) = (Draws::new(42), Draws::new(42));
        for _ in 0..10 {
            assert_eq!(a.normal(0.0, 1.0).to_bits(), b.normal(0.0, 1.0).to_bits());
        }
        assert_ne!(Draws::new(1).uniform(0.0, 1.0), Draws::new(2).uniform(0.0, 1.0));
    }
}
