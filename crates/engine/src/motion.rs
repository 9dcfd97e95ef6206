//! Prescribed motion laws f(t) of drivers, with the analytic derivatives the velocity and
//! acceleration equations need (Phi_q q' = f', Phi_q q'' = f'' - ...).

use mbfmu_model::format::{Motion, SpeedRamp};

/// f, f', f'' at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MotionValue {
    pub f: f64,
    pub df: f64,
    pub ddf: f64,
}

/// An input-rate motion at one instant: f is `value` (the coordinate at the last step's
/// start) plus `increment`, the exact integral of the rate input since then
/// ([`crate::inputs::InputSignals::integral`]); f' is the input, f'' its derivative.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputRate {
    pub value: f64,
    pub increment: f64,
    pub rate: f64,
    pub rate_derivative: f64,
}

/// Evaluates `motion` at `t`. `input` is required for [`Motion::InputRate`].
pub fn evaluate(motion: &Motion, t: f64, input: Option<InputRate>) -> MotionValue {
    match motion {
        Motion::ConstantRate { initial, rate } => MotionValue { f: initial + rate * t, df: *rate, ddf: 0.0 },
        Motion::Polynomial { coefficients } => {
            let (mut f, mut df, mut ddf) = (0.0, 0.0, 0.0);
            for &c in coefficients.iter().rev() {
                ddf = ddf * t + 2.0 * df;
                df = df * t + f;
                f = f * t + c;
            }
            MotionValue { f, df, ddf }
        }
        Motion::Harmonic { offset, amplitude, frequency, phase } => {
            let arg = frequency * t + phase;
            MotionValue {
                f: offset + amplitude * arg.sin(),
                df: amplitude * frequency * arg.cos(),
                ddf: -amplitude * frequency * frequency * arg.sin(),
            }
        }
        Motion::SmoothStep { t0, t1, from, to } => {
            let span = t1 - t0;
            let s = ((t - t0) / span).clamp(0.0, 1.0);
            let jump = to - from;
            MotionValue {
                f: from + jump * s * s * s * (10.0 - 15.0 * s + 6.0 * s * s),
                df: jump / span * 30.0 * s * s * (1.0 - s) * (1.0 - s),
                ddf: jump / (span * span) * 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s),
            }
        }
        Motion::Piecewise { segments } => {
            let segment =
                segments.iter().find(|s| t < s.until).unwrap_or_else(|| segments.last().expect("validated: not empty"));
            evaluate(&segment.motion, t, None)
        }
        Motion::CosineRamp { t0, duration, from, to } => {
            let s = ((t - t0) / duration).clamp(0.0, 1.0);
            let inside = t > *t0 && t < t0 + duration;
            let (half, w) = (0.5 * (to - from), std::f64::consts::PI / duration);
            MotionValue {
                f: from + half * (1.0 - (std::f64::consts::PI * s).cos()),
                df: if inside { half * w * (std::f64::consts::PI * s).sin() } else { 0.0 },
                ddf: if inside { half * w * w * (std::f64::consts::PI * s).cos() } else { 0.0 },
            }
        }
        Motion::SpeedRamps { initial, ramps } => speed_ramps(*initial, ramps, t),
        Motion::Sum { terms } => terms.iter().fold(MotionValue::default(), |acc, m| {
            let v = evaluate(m, t, None);
            MotionValue { f: acc.f + v.f, df: acc.df + v.df, ddf: acc.ddf + v.ddf }
        }),
        Motion::InputRate { .. } => {
            let i = input.expect("an input-rate motion is evaluated with its input");
            MotionValue { f: i.value + i.increment, df: i.rate, ddf: i.rate_derivative }
        }
    }
}

/// f, f', f'' of [`Motion::SpeedRamps`]: during a ramp from rate a to b over [s, s + d],
/// f' = a + (b - a) (1 - cos(pi (t - s) / d)) / 2, whose integral from s is
/// a (t - s) + (b - a) / 2 ((t - s) - d / pi sin(pi (t - s) / d)).
fn speed_ramps(initial: f64, ramps: &[SpeedRamp], t: f64) -> MotionValue {
    use std::f64::consts::PI;
    let (mut f, mut rate, mut since) = (initial, 0.0, f64::NEG_INFINITY);
    for r in ramps {
        if t <= r.start {
            break;
        }
        if since.is_finite() {
            f += rate * (r.start - since);
        }
        let (a, b, d) = (rate, r.rate, r.duration);
        if t < r.start + d {
            let x = t - r.start;
            let w = PI / d;
            return MotionValue {
                f: f + a * x + 0.5 * (b - a) * (x - (w * x).sin() / w),
                df: a + 0.5 * (b - a) * (1.0 - (w * x).cos()),
                ddf: 0.5 * (b - a) * w * (w * x).sin(),
            };
        }
        f += 0.5 * (a + b) * d;
        rate = b;
        since = r.start + d;
    }
    if since.is_finite() {
        f += rate * (t - since);
    }
    MotionValue { f, df: rate, ddf: 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbfmu_model::format::Segment;

    fn check_derivatives(m: &Motion, t: f64) {
        let h = 1e-5;
        let (a, b, c) = (evaluate(m, t - h, None), evaluate(m, t, None), evaluate(m, t + h, None));
        assert!(((c.f - a.f) / (2.0 * h) - b.df).abs() < 1e-6 * (1.0 + b.df.abs()), "{m:?} f' at {t}");
        assert!(((c.df - a.df) / (2.0 * h) - b.ddf).abs() < 1e-5 * (1.0 + b.ddf.abs()), "{m:?} f'' at {t}");
    }

    #[test]
    fn derivatives_are_consistent() {
        let laws = [
            Motion::ConstantRate { initial: 0.5, rate: -2.0 },
            Motion::Polynomial { coefficients: vec![1.0, -2.0, 0.5, 0.25] },
            Motion::Harmonic { offset: 0.1, amplitude: 2.0, frequency: 3.0, phase: 0.4 },
            Motion::SmoothStep { t0: 0.2, t1: 1.2, from: 1.0, to: -3.0 },
            Motion::Piecewise {
                segments: vec![
                    Segment { until: 1.0, motion: Motion::ConstantRate { initial: 0.0, rate: 1.0 } },
                    Segment {
                        until: 2.0,
                        motion: Motion::Harmonic { offset: 0.0, amplitude: 1.0, frequency: 1.0, phase: 0.0 },
                    },
                ],
            },
            Motion::CosineRamp { t0: 0.1, duration: 0.4, from: 0.2, to: 3.0 },
            Motion::SpeedRamps {
                initial: 0.3,
                ramps: vec![
                    SpeedRamp { start: 0.2, duration: 0.6, rate: 48.0 },
                    SpeedRamp { start: 1.0, duration: 0.7, rate: 72.0 },
                ],
            },
            Motion::Sum {
                terms: vec![
                    Motion::ConstantRate { initial: 0.5, rate: 24.0 },
                    Motion::Harmonic { offset: 0.0, amplitude: -3.8, frequency: 6.3, phase: 0.0 },
                ],
            },
        ];
        for m in &laws {
            for t in [0.3, 0.7, 1.5, 2.5] {
                check_derivatives(m, t);
            }
        }
        // Speed ramps: the plateau values and the angle they imply (the mean rate over a ramp).
        let spin = Motion::SpeedRamps {
            initial: 0.0,
            ramps: vec![
                SpeedRamp { start: 0.0, duration: 0.5, rate: 48.0 },
                SpeedRamp { start: 1.0, duration: 0.25, rate: 72.0 },
            ],
        };
        assert_eq!(evaluate(&spin, -1.0, None), MotionValue { f: 0.0, df: 0.0, ddf: 0.0 });
        let v = evaluate(&spin, 2.0, None);
        assert!((v.f - (12.0 + 48.0 * 0.5 + 15.0 + 72.0 * 0.75)).abs() < 1e-12 && v.df == 72.0, "{v:?}");
        let step = Motion::SmoothStep { t0: 0.0, t1: 2.0, from: 1.0, to: 3.0 };
        assert_eq!(evaluate(&step, -1.0, None).f, 1.0);
        assert_eq!(evaluate(&step, 5.0, None), MotionValue { f: 3.0, df: 0.0, ddf: 0.0 });
        assert!((evaluate(&step, 1.0, None).f - 2.0).abs() < 1e-15);
    }

    #[test]
    fn input_rate_integrates_the_held_input() {
        let m = Motion::InputRate { input: "u".into(), initial: 0.0 };
        let v =
            evaluate(&m, 1.5, Some(InputRate { value: 2.0, increment: 4.0 * 0.5, rate: 4.0, rate_derivative: 0.0 }));
        assert_eq!(v, MotionValue { f: 4.0, df: 4.0, ddf: 0.0 });
    }
}
