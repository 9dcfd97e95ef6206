//! The replays on the catalog's documentation pages: each built-in model's default experiment,
//! run in-process by the linked FMU library (as `simulate <Model>` runs it), made into a replay
//! page of at most [`REPLAY_SIZE_LIMIT`] bytes.

use crate::args::ExperimentArgs;
use crate::error::{Error, Result};
use crate::fmu::read_groups;
use crate::stepping::{step_through, Ending};
use mbfmu_model::catalog::CatalogEntry;
use mbfmu_package::documentation::REPLAY_SIZE_LIMIT;
use mbfmu_package::replay::{self, Channel, Options, Part, Run};
use mbfmu_package::Motion;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The default experiment of a built-in model, every numeric output recorded.
pub fn default_experiment(entry: &CatalogEntry) -> Result<Run> {
    let info = crate::linked::description(entry)?;
    let none = ExperimentArgs { start_time: None, stop_time: None, step: None, tolerance: None };
    let (grid, tolerance) = none.resolve(&info.experiment)?;
    let (columns, _) = crate::simulate::default_outputs(&info);
    let groups = read_groups(&columns);
    let mut slave = crate::linked::instantiate(&info, false)?;
    slave.enter_initialization(tolerance, grid.start, grid.stop)?;
    slave.exit_initialization()?;
    let mut row = vec![0.0; columns.len()];
    let mut time = vec![grid.start];
    slave.read(&groups, &mut row)?;
    let mut values: Vec<Vec<f64>> = row.iter().map(|v| vec![*v]).collect();
    let (ending, reached) = step_through(
        &mut *slave,
        &grid,
        &groups,
        &mut row,
        |_, _| Ok(()),
        |_, t, row| {
            time.push(t);
            values.iter_mut().zip(row).for_each(|(v, x)| v.push(*x));
            Ok(())
        },
    );
    match ending {
        Ending::Completed | Ending::Terminated { .. } => {}
        Ending::Failed { .. } | Ending::Error(_) => {
            return Err(Error::msg(format!("{}: the default experiment stopped at t = {reached}", entry.name)))
        }
    }
    slave.terminate()?;
    let channels = columns
        .iter()
        .zip(values)
        .map(|(v, values)| Channel { name: v.name.clone(), unit: v.unit.clone().unwrap_or_default(), values })
        .collect();
    Run::new(time, channels).map_err(|e| Error::msg(format!("{}: {e}", entry.name)))
}

/// The replay of a built-in model's default experiment for its documentation, or why there
/// is none. Runs too large for [`REPLAY_SIZE_LIMIT`] are thinned (600, 300, 150 samples).
pub fn motion(entry: &CatalogEntry, bundle: &str) -> Motion {
    let d = match mbfmu_model::format::parse(entry.json) {
        Ok(d) => d,
        Err(e) => return Motion::Omitted(format!("No replay: the description does not read ({e}).")),
    };
    let parts = [Part { description: &d, prefix: String::new() }];
    // A model with nothing to draw needs no run.
    let probe = Run::new(vec![0.0, 1.0], Vec::new()).expect("two times");
    if let Err(replay::ReplayError::NothingToDraw { .. }) =
        replay::scene_json(&d.name, "", &parts, &probe, &Options::default())
    {
        return Motion::Omitted(
            "This model has no bodies, beams or cylinders attached to a mechanism: nothing of it moves in space, so \
             there is no 3D replay."
                .into(),
        );
    }
    let run = match default_experiment(entry) {
        Ok(run) => run,
        Err(e) => return Motion::Omitted(format!("No replay: {e}.")),
    };
    for max_samples in [600, 300, 150] {
        let options = Options { max_samples, ..Options::default() };
        match replay::scene_json(&d.name, &d.description, &parts, &run, &options) {
            Ok(scene) if scene.len() + bundle.len() <= REPLAY_SIZE_LIMIT => {
                let html = replay::page(&d.name, &scene, bundle);
                let samples = run.time.len().min(max_samples);
                return Motion::Replay { html, samples };
            }
            Ok(_) => continue,
            Err(e) => return Motion::Omitted(format!("No replay: {e}.")),
        }
    }
    Motion::Omitted(format!(
        "No replay on this page: even at 150 samples it would exceed {} MB; `mbfmu simulate {} --animate run.html` \
         writes one.",
        REPLAY_SIZE_LIMIT / 1_000_000,
        entry.name
    ))
}

/// The documentation replays of `entries` (in order), made on two threads; without the
/// player, every page says how to add them.
pub fn motions(entries: &[&'static CatalogEntry]) -> Vec<Motion> {
    let bundle = match replay::bundle() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("note: the documentation pages carry no 3D replays: {e}");
            return entries.iter().map(|_| Motion::not_made()).collect();
        }
    };
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
    let mut made: Vec<(usize, Motion)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(entry) = entries.get(k) else { break };
                        mine.push((k, motion(entry, &bundle)));
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a replay worker panicked")).collect()
    });
    made.sort_by_key(|(k, _)| *k);
    made.into_iter().map(|(_, m)| m).collect()
}
