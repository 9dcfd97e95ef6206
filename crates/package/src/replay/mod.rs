//! The 3D replay of a run: one self-contained HTML page that shows a model's motion from its
//! own outputs (docs/replay.md).
//!
//! The page is a JSON scene in a data script plus the player bundle, our player and three.js
//! bundled by esbuild at an install step (`scripts/install-replay.sh`, from the lock file in
//! `crates/package/replay`), read here at run time: building this crate never needs npm.
//! The scene holds the moving frames (bodies, beam nodes) with the output channels that pose
//! them, the elements fixed to those frames in local coordinates ([`scene`]), and the run's
//! channels, thinned to at most [`Options::max_samples`] samples.

pub mod run;
pub mod scene;

pub use run::{Channel, Run, RunError};
use scene::{dot, rotate, sub, Elements, ShapeOut, V3};

use mbfmu_model::format::Description;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where the player bundle is looked for when `MBFMU_REPLAY_BUNDLE` is not set.
pub const BUNDLE_IN_REPOSITORY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/replay/dist/replay.js");

/// Choices of a replay page.
#[derive(Clone, Debug)]
pub struct Options {
    /// Channels plotted beside the 3D view at first (none: a choice of the run's other outputs).
    pub plots: Vec<String>,
    /// At most this many samples of the run are kept (evenly spaced, both ends included).
    pub max_samples: usize,
    /// Initial magnification of the beams' elastic deformation.
    pub magnification: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options { plots: Vec::new(), max_samples: 600, magnification: 1.0 }
    }
}

/// Why no replay could be made.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayError {
    Run(RunError),
    /// The run lacks the outputs that pose some elements: (element, missing channels).
    MissingPoses {
        model: String,
        missing: Vec<(String, Vec<String>)>,
    },
    /// The model has nothing that moves in space.
    NothingToDraw {
        model: String,
    },
    /// A channel to plot that the run does not have (with some that it has).
    UnknownPlot {
        name: String,
        available: Vec<String>,
    },
    /// The player bundle is not installed.
    NoBundle {
        path: PathBuf,
        reason: String,
    },
}

impl From<RunError> for ReplayError {
    fn from(e: RunError) -> Self {
        ReplayError::Run(e)
    }
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Run(e) => write!(f, "{e}"),
            ReplayError::MissingPoses { model, missing } => {
                let shown: Vec<String> =
                    missing.iter().take(4).map(|(what, names)| format!("{what} ({})", names.join(", "))).collect();
                let more = match missing.len() {
                    n if n > 4 => format!("; and {} more elements", n - 4),
                    _ => String::new(),
                };
                write!(
                    f,
                    "the run of {model} does not determine the poses of {} element{}: it lacks the outputs of {}{more}. \
                     Declare them with the animation output group, {{\"animation\": [\"bodies\", \"beams\"]}} in \
                     interface.outputs of the description (every body's and beam node's position and orientation), \
                     package the model again and rerun it; or, if the FMU has them, name them with --outputs",
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" },
                    shown.join("; ")
                )
            }
            ReplayError::NothingToDraw { model } => write!(
                f,
                "{model} has no bodies, beams or cylinders attached to a mechanism: nothing of it moves in space to \
                 replay (plot its outputs with --plot instead)"
            ),
            ReplayError::UnknownPlot { name, available } => write!(
                f,
                "the run has no output '{name}' to plot; it has {}",
                available.iter().take(12).map(|a| format!("'{a}'")).collect::<Vec<_>>().join(", ")
            ),
            ReplayError::NoBundle { path, reason } => write!(
                f,
                "the replay page embeds the player (our player code bundled with three.js), which is not installed \
                 at {} ({reason}): run scripts/install-replay.sh in the repository (it needs Node.js and npm), or set \
                 MBFMU_REPLAY_BUNDLE to a built replay.js",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ReplayError {}

/// The player bundle: `$MBFMU_REPLAY_BUNDLE`, else the repository's built bundle.
pub fn bundle() -> Result<String, ReplayError> {
    let path =
        std::env::var_os("MBFMU_REPLAY_BUNDLE").map_or_else(|| PathBuf::from(BUNDLE_IN_REPOSITORY), PathBuf::from);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| ReplayError::NoBundle { path: path.clone(), reason: e.to_string() })?;
    if text.contains("</script") {
        return Err(ReplayError::NoBundle {
            path,
            reason: "it contains \"</script\", which would end the page's script early".into(),
        });
    }
    Ok(text)
}

/// A model of a replay: its description and the prefix of its channels in the run ("" for a
/// single FMU, "<component>." in a system).
pub struct Part<'a> {
    pub description: &'a Description,
    pub prefix: String,
}

#[derive(Serialize)]
struct Extent {
    min: V3,
    max: V3,
}

#[derive(Serialize)]
struct SceneJson<'a> {
    version: u32,
    model: &'a str,
    title: &'a str,
    up: V3,
    view: V3,
    extent: Extent,
    time: Vec<f64>,
    channels: BTreeMap<&'a str, Vec<Option<f32>>>,
    units: BTreeMap<&'a str, &'a str>,
    frames: &'a [scene::Frame],
    bodies: &'a [scene::BodyOut],
    beams: &'a [scene::BeamOut],
    joints: &'a [scene::JointOut],
    links: &'a [scene::LinkOut],
    pressure_range: Option<[f64; 2]>,
    gauges: &'a [scene::Gauge],
    plots: Vec<&'a str>,
    magnification: f64,
}

/// The scene of `parts` posed by `run`, as the JSON the page's data script holds.
pub fn scene_json(
    model: &str,
    title: &str,
    parts: &[Part],
    run: &Run,
    options: &Options,
) -> Result<String, ReplayError> {
    let mut elements = Elements::new();
    for part in parts {
        scene::add_model(&mut elements, part.description, &part.prefix, run);
    }
    if elements.frames.len() == 1 && elements.links.is_empty() {
        return Err(ReplayError::NothingToDraw { model: model.to_string() });
    }
    if !elements.missing.is_empty() {
        return Err(ReplayError::MissingPoses { model: model.to_string(), missing: elements.missing });
    }
    for name in &options.plots {
        if !run.has(name) {
            return Err(ReplayError::UnknownPlot {
                name: name.clone(),
                available: run.channels.iter().map(|c| c.name.clone()).collect(),
            });
        }
    }
    let kept = run.thinned(options.max_samples);
    let posing: std::collections::HashSet<&str> = elements
        .frames
        .iter()
        .flat_map(|f| f.position.iter().flatten().chain(f.orientation.iter().flatten()))
        .map(String::as_str)
        .collect();
    let plots: Vec<&str> = if options.plots.is_empty() {
        // The other outputs that change most over the run.
        let others: Vec<&Channel> = run.channels.iter().filter(|c| !posing.contains(&c.name.as_str())).collect();
        let values: Vec<Vec<f64>> = others.iter().map(|c| kept.iter().map(|&i| c.values[i]).collect()).collect();
        let units: Vec<Option<&str>> = others.iter().map(|c| Some(c.unit.as_str())).collect();
        run::most_changing(&values, &units).into_iter().map(|k| others[k].name.as_str()).collect()
    } else {
        options.plots.iter().map(String::as_str).collect()
    };
    let pressures: Vec<&str> =
        elements.links.iter().flat_map(|l| l.pressures.iter().flatten().flatten()).map(String::as_str).collect();
    let pressure_range = range(pressures.iter().flat_map(|p| kept.iter().map(|&i| run.values(p)[i])));
    let (up, view) = camera(parts);
    let json = SceneJson {
        version: 1,
        model,
        title,
        up,
        view,
        extent: extent(&elements, run, &kept),
        time: kept.iter().map(|&i| run.time[i]).collect(),
        channels: run
            .channels
            .iter()
            .map(|c| {
                let values = kept.iter().map(|&i| Some(c.values[i] as f32).filter(|x| x.is_finite())).collect();
                (c.name.as_str(), values)
            })
            .collect(),
        units: run.channels.iter().map(|c| (c.name.as_str(), c.unit.as_str())).collect(),
        frames: &elements.frames,
        bodies: &elements.bodies,
        beams: &elements.beams,
        joints: &elements.joints,
        links: &elements.links,
        pressure_range,
        gauges: &elements.gauges,
        plots,
        magnification: options.magnification,
    };
    let text = serde_json::to_string(&json).expect("the scene serializes");
    // Inside a <script> element "</" could end it; "<\/" reads the same in JSON.
    Ok(text.replace("</", "<\\/"))
}

/// The replay page: the scene (of [`scene_json`]) and the player bundle (of [`bundle`]) in one
/// HTML file that needs no network.
pub fn page(model: &str, scene: &str, bundle: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} - 3D replay</title></head>\n<body>\n\
         <script type=\"application/json\" id=\"mbfmu-replay-data\">{scene}</script>\n<script>{bundle}</script>\n</body></html>\n",
        crate::drawing::escape(model)
    )
}

/// Smallest and largest finite value, if any.
fn range(values: impl Iterator<Item = f64>) -> Option<[f64; 2]> {
    values.filter(|x| x.is_finite()).fold(None, |r, x| match r {
        None => Some([x, x]),
        Some([lo, hi]) => Some([lo.min(x), hi.max(x)]),
    })
}

/// "Up" (against gravity, in the plane of a planar model) and the direction the camera looks
/// along: the drawings' view of the first model with a mechanism, turned a little off its
/// normal so that depth shows.
fn camera(parts: &[Part]) -> (V3, V3) {
    let Some(d) = parts.iter().map(|p| p.description).find(|d| !d.bodies.is_empty() || !d.beams.is_empty()) else {
        return ([0.0, 0.0, 1.0], [-0.6, -0.6, -0.5]);
    };
    let view = crate::drawing::view_of(d);
    // n points at the viewer; look along -n, from about 30 degrees right of and above the drawing's view.
    let look: V3 = std::array::from_fn(|k| -view.n[k] - 0.5 * view.u[k] - 0.35 * view.v[k]);
    (view.v, look)
}

/// The box around every drawn point over the kept samples.
fn extent(e: &Elements, run: &Run, kept: &[usize]) -> Extent {
    let mut local: Vec<Vec<V3>> = vec![Vec::new(); e.frames.len()];
    for b in &e.bodies {
        for s in &b.shapes {
            match s {
                ShapeOut::Bar { a, b: p, .. } | ShapeOut::Cylinder { a, b: p, .. } => {
                    local[b.frame].extend([*a, *p]);
                }
                ShapeOut::Sphere { center, .. } | ShapeOut::Box { center, .. } => local[b.frame].push(*center),
            }
        }
    }
    for j in &e.joints {
        local[j.frame].push(j.point);
    }
    for l in &e.links {
        local[l.a.frame].push(l.a.point);
        local[l.b.frame].push(l.b.point);
    }
    for beam in &e.beams {
        for &n in &beam.nodes {
            local[n].push([0.0; 3]);
        }
    }
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    let mut add = |p: V3| {
        if p.iter().all(|x| x.is_finite()) {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    };
    for (f, points) in e.frames.iter().zip(&local) {
        if points.is_empty() {
            continue;
        }
        let Some(position) = &f.position else {
            points.iter().for_each(|p| add(*p));
            continue;
        };
        for &i in kept {
            let x: V3 = std::array::from_fn(|k| run.values(&position[k])[i]);
            let q = f.orientation.as_ref().map(|o| {
                let q: [f64; 4] = std::array::from_fn(|k| run.values(&o[k])[i]);
                let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
                q.map(|c| c / n)
            });
            for p in points {
                let r = q.map_or(*p, |q| rotate(q, *p));
                add(std::array::from_fn(|k| x[k] + r[k]));
            }
        }
    }
    if !lo[0].is_finite() {
        return Extent { min: [-1.0; 3], max: [1.0; 3] };
    }
    // A margin of a twentieth of the diagonal (at least 1 mm) around flat or point-like scenes.
    let margin = (dot(sub(hi, lo), sub(hi, lo)).sqrt() / 20.0).max(1e-3);
    Extent { min: lo.map(|x| x - margin), max: hi.map(|x| x + margin) }
}
