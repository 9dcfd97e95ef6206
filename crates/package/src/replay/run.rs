//! The time series a replay shows: a time column and named channels, as a simulation run or a
//! results CSV file holds them.

use std::collections::HashMap;

/// One output's values at the run's times.
#[derive(Clone, Debug)]
pub struct Channel {
    pub name: String,
    pub unit: String,
    pub values: Vec<f64>,
}

/// A run: strictly increasing times and channels of the same length.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub time: Vec<f64>,
    pub channels: Vec<Channel>,
    index: HashMap<String, usize>,
}

/// Why a run cannot be replayed.
#[derive(Debug, Clone, PartialEq)]
pub enum RunError {
    /// Fewer than two samples.
    Empty { samples: usize },
    /// A time that does not follow its predecessor (sample index, both times).
    TimeNotIncreasing { sample: usize, previous: f64, time: f64 },
    /// A channel whose length differs from the time column's.
    Length { channel: String, values: usize, times: usize },
    /// Two channels of one name.
    Duplicate { channel: String },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Empty { samples } => write!(
                f,
                "the run has {samples} sample{} of time; a replay needs at least two",
                if *samples == 1 { "" } else { "s" }
            ),
            RunError::TimeNotIncreasing { sample, previous, time } => write!(
                f,
                "time does not increase at sample {sample} ({previous} then {time}): the first column must be the \
                 run's time, increasing row by row"
            ),
            RunError::Length { channel, values, times } => {
                write!(f, "channel '{channel}' has {values} values for {times} times")
            }
            RunError::Duplicate { channel } => write!(f, "channel '{channel}' appears twice"),
        }
    }
}

impl Run {
    /// A run of `time` and `channels`, checked: at least two samples, time strictly
    /// increasing, every channel as long as the time column, names unique.
    pub fn new(time: Vec<f64>, channels: Vec<Channel>) -> Result<Run, RunError> {
        if time.len() < 2 {
            return Err(RunError::Empty { samples: time.len() });
        }
        for (k, w) in time.windows(2).enumerate() {
            if w[1].partial_cmp(&w[0]) != Some(std::cmp::Ordering::Greater) {
                return Err(RunError::TimeNotIncreasing { sample: k + 1, previous: w[0], time: w[1] });
            }
        }
        let mut index = HashMap::new();
        for (k, c) in channels.iter().enumerate() {
            if c.values.len() != time.len() {
                return Err(RunError::Length { channel: c.name.clone(), values: c.values.len(), times: time.len() });
            }
            if index.insert(c.name.clone(), k).is_some() {
                return Err(RunError::Duplicate { channel: c.name.clone() });
            }
        }
        Ok(Run { time, channels, index })
    }

    pub fn has(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    pub fn channel(&self, name: &str) -> Option<&Channel> {
        self.index.get(name).map(|&k| &self.channels[k])
    }

    /// The values of channel `name` (empty if there is none).
    pub fn values(&self, name: &str) -> &[f64] {
        self.channel(name).map_or(&[], |c| &c.values)
    }

    pub fn unit(&self, name: &str) -> &str {
        self.channel(name).map_or("", |c| &c.unit)
    }

    /// The first value of channel `name` (NaN if there is none).
    pub fn first(&self, name: &str) -> f64 {
        self.values(name).first().copied().unwrap_or(f64::NAN)
    }

    /// The samples a replay of at most `max` samples keeps: evenly spaced, the first and the
    /// last included.
    pub fn thinned(&self, max: usize) -> Vec<usize> {
        let n = self.time.len();
        let max = max.max(2);
        if n <= max {
            return (0..n).collect();
        }
        let mut kept: Vec<usize> = (0..max).map(|k| (k * (n - 1) + (max - 1) / 2) / (max - 1)).collect();
        kept.dedup();
        kept
    }
}

/// How many channels are plotted when none are chosen.
pub const PLOTTED: usize = 4;

/// The channels plotted when none are chosen (the PNG plot and the replay's side plot): the PLOTTED that change most over the
/// run, ranked by their range (max - min) relative to the scale of their quantity, the largest
/// magnitude any output of the same unit reaches (so a body swinging by a metre outranks one
/// creeping by a millimetre, whatever their distance from the origin). Ties keep the CSV order.
/// An output whose range is below 1e-9 of that scale (and of 1) is constant, round-off on a
/// quantity that is zero by symmetry included, and never chosen; only if every output is
/// constant are the first ones plotted, there being nothing else to show.
pub fn most_changing(history: &[Vec<f64>], units: &[Option<&str>]) -> Vec<usize> {
    let range = |c: usize| {
        let finite = history[c].iter().filter(|v| v.is_finite());
        let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        (lo <= hi).then_some((lo, hi))
    };
    let ranges: Vec<Option<(f64, f64)>> = (0..units.len()).map(range).collect();
    let scale = |c: usize| {
        (0..units.len())
            .filter(|&k| units[k] == units[c])
            .filter_map(|k| ranges[k].map(|(lo, hi)| lo.abs().max(hi.abs())))
            .fold(0.0, f64::max)
    };
    let mut changing: Vec<(usize, f64)> = (0..units.len())
        .filter_map(|c| {
            let (lo, hi) = ranges[c]?;
            let scale = scale(c);
            (hi - lo > 1e-9 * scale.max(1.0)).then(|| (c, (hi - lo) / scale))
        })
        .collect();
    // A stable sort: equal changes stay in CSV order.
    changing.sort_by(|a, b| b.1.total_cmp(&a.1));
    if changing.is_empty() {
        return (0..units.len().min(PLOTTED)).collect();
    }
    changing.into_iter().take(PLOTTED).map(|(c, _)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(name: &str, values: Vec<f64>) -> Channel {
        Channel { name: name.into(), unit: "m".into(), values }
    }

    #[test]
    fn checks_time_and_lengths() {
        assert_eq!(Run::new(vec![0.0], vec![]).unwrap_err(), RunError::Empty { samples: 1 });
        assert!(matches!(
            Run::new(vec![0.0, 1.0, 1.0], vec![]).unwrap_err(),
            RunError::TimeNotIncreasing { sample: 2, .. }
        ));
        assert!(matches!(
            Run::new(vec![0.0, 1.0], vec![channel("a", vec![1.0])]).unwrap_err(),
            RunError::Length { values: 1, times: 2, .. }
        ));
        assert!(matches!(
            Run::new(vec![0.0, 1.0], vec![channel("a", vec![1.0, 2.0]), channel("a", vec![1.0, 2.0])]).unwrap_err(),
            RunError::Duplicate { .. }
        ));
    }

    #[test]
    fn thinning_keeps_both_ends_evenly() {
        let run = Run::new((0..1001).map(f64::from).collect(), vec![]).unwrap();
        let kept = run.thinned(101);
        assert_eq!(kept.len(), 101);
        assert_eq!((kept[0], kept[100]), (0, 1000));
        assert!(kept.windows(2).all(|w| w[1] - w[0] == 10));
        assert_eq!(run.thinned(5000).len(), 1001);
    }

    #[test]
    fn default_plot_ranks_outputs_by_their_change_and_leaves_constants_out() {
        let m = Some("m");
        // A coordinate that stays constant, round-off around zero, a NaN that is skipped, a
        // body swinging by 2 m, one creeping by 1 mm far from the origin, and a velocity.
        let h = vec![
            vec![60.0, 60.0, 60.0],
            vec![0.0, 1e-17, -1e-17],
            vec![f64::NAN, 0.0, 1.0],
            vec![1.0, -1.0, 0.5],
            vec![59.0, 59.001, 59.0],
            vec![0.0, 3.0, -3.0],
        ];
        let units = [m, m, m, m, m, Some("m/s")];
        assert_eq!(most_changing(&h, &units), vec![5, 3, 2, 4], "largest relative change first");
        assert!(!most_changing(&h, &units).contains(&0), "the constant coordinate is never chosen");
        assert_eq!(most_changing(&h[..2], &units[..2]), vec![0, 1], "all constant: the first ones");
        // Equal changes keep the CSV order; only four are chosen.
        let moving = vec![vec![0.0, 1.0]; 6];
        assert_eq!(most_changing(&moving, &[None; 6]), vec![0, 1, 2, 3]);
    }
}
