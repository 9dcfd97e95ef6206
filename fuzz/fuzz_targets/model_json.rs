//! Arbitrary text as a model description: the loader either refuses it with an error or
//! gives a model that builds or is refused by the engine, and a few bounded steps run;
//! never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(model) = mbfmu_model::Model::from_json(text) {
        if let Ok(mut sim) = mbfmu_engine::Simulation::new(&model.description) {
            let d = &model.description;
            let _ = sim.advance_within(d.experiment.start + 3.0 * d.experiment.step, 200);
        }
    }
});
