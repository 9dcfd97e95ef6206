//! The description a slave builds its simulation from. With every parameter at its start
//! value it is the model's own description (the shortcut the first build takes); it must be
//! the description that writing the parameter values into the model's document gives, the
//! way taken when a parameter was changed.

use mbfmu::slave::Slave;
use mbfmu_model::{catalog, format::Description, Model};
use std::sync::Arc;

/// The shortcut's description and the written one, with the host's experiment of the first.
fn both(slave: &Slave) -> (Description, Description) {
    let effective = slave.effective_description().unwrap();
    let mut applied = slave.applied_description().unwrap();
    applied.experiment.start = effective.experiment.start;
    applied.experiment.stop = effective.experiment.stop;
    (effective, applied)
}

#[test]
fn start_values_give_the_description_the_document_gives() {
    for entry in catalog::CATALOG {
        let model = Arc::new(Model::from_catalog(entry).unwrap());
        let (effective, applied) = both(&Slave::new(model.clone()));
        assert_eq!(effective, applied, "{}", entry.name);
        assert_eq!(effective.bodies, model.description.bodies, "{}", entry.name);
    }
}

#[test]
fn a_changed_parameter_or_setting_is_applied() {
    let model = Arc::new(Model::from_catalog(catalog::find("DoublePendulum").unwrap()).unwrap());
    let vr = |name: &str| model.interface.by_name(name).unwrap().value_reference;
    let mut slave = Slave::new(model.clone());
    let mass = model.description.bodies[0].mass;
    slave.set(vr("bar1.mass"), 2.0 * mass).unwrap();
    let (effective, applied) = both(&slave);
    assert_eq!(effective.bodies[0].mass, 2.0 * mass);
    assert_eq!(effective, applied);
    // A solver setting (an enumeration: another method than the description's).
    slave.set(vr("bar1.mass"), mass).unwrap();
    let method = vr("solver.method");
    let start = slave.get(method).unwrap();
    slave.set(method, if start == 1.0 { 2.0 } else { 1.0 }).unwrap();
    let (effective, applied) = both(&slave);
    assert_ne!(effective.solver, model.description.solver);
    assert_eq!(effective, applied);
    // Back at the start values: the description itself again.
    slave.set(method, start).unwrap();
    let (effective, applied) = both(&slave);
    assert_eq!(effective, applied);
    assert_eq!(effective.solver.method, model.description.solver.method);
}
