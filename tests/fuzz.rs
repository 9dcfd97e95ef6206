//! Property-based fuzzing with fixed seeds, so that CI is deterministic:
//! - random and mutated FMU-state bytes into fmi2DeSerializeFMUstate and
//!   fmi3DeserializeFMUState (then Set): OK or Error with a log line, never a panic, and the
//!   instance stays usable;
//! - mutated catalog JSON into the model loader (description, variable table, engine build,
//!   a few bounded steps): a result or an error, never a panic or a hang.
//!
//! Random FMI call sequences against a model of the standard's state machine are in
//! tests/call_sequences.rs.
//!
//! A longer run: `PROPTEST_CASES=5000 cargo test --release --test suite fuzz::`.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use mbfmu_model::catalog::{find, CATALOG};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::Value;

fn runner(cases: u32, seed: u64) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(cases);
    TestRunner::new(Config { cases, rng_seed: RngSeed::Fixed(seed), failure_persistence: None, ..Config::default() })
}

/// Valid bytes with up to eight byte changes and an optional cut, or random bytes.
fn state_bytes(valid: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let n = valid.len();
    prop_oneof![
        (prop::collection::vec((0..n, any::<u8>()), 1..8), 0..=n).prop_map(move |(edits, cut)| {
            let mut b = valid.clone();
            for (i, v) in edits {
                b[i] = v;
            }
            b.truncate(cut.max(1));
            b
        }),
        prop::collection::vec(any::<u8>(), 0..600),
    ]
}

#[test]
fn mutated_fmi2_states_are_refused_or_restored_and_the_instance_survives() {
    let entry = find("DoublePendulum").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let f = Fmu2::new(entry, "fuzz-state2");
    f.init(start, stop);
    assert_eq!(f.do_step(start, h), OK2);
    let good = f.get_state();
    let valid = f.serialize(good);
    runner(200, 0x5eed_0001)
        .run(&state_bytes(valid), |bytes| {
            let (status, state) = f.deserialize(&bytes);
            if status == OK2 {
                let set = unsafe { f.b.fmi2SetFMUstate(f.c, state) };
                prop_assert!(set == OK2 || set == ERROR2, "SetFMUstate status {set}");
                f.free_state(state);
            } else {
                prop_assert_eq!(status, ERROR2);
                let lines = f.lines();
                let (level, line) = lines.last().expect("an Error comes with a log line");
                prop_assert_eq!(*level, log::Level::Error, "{}", line);
            }
            prop_assert!(!f.lines().iter().any(|(_, l)| l.contains("internal error")), "a panic reached the firewall");
            prop_assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, good) }, OK2);
            prop_assert_eq!(f.do_step(start + h, h), OK2, "the instance stays usable");
            prop_assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, good) }, OK2);
            Ok(())
        })
        .unwrap();
    f.free_state(good);
}

#[test]
fn mutated_fmi3_states_are_refused_or_restored_and_the_instance_survives() {
    let entry = find("HydraulicFourBar").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let f = Fmu3::new(entry, "fuzz-state3");
    f.init(start, stop);
    assert_eq!(f.do_step(start, h).0, OK3);
    let good = f.get_state();
    let valid = f.serialize(good);
    runner(200, 0x5eed_0002)
        .run(&state_bytes(valid), |bytes| {
            let (status, state) = f.deserialize(&bytes);
            if status == OK3 {
                let set = unsafe { f.b.fmi3SetFMUState(f.c, state) };
                prop_assert!(set == OK3 || set == ERROR3, "SetFMUState status {set}");
                f.free_state(state);
            } else {
                prop_assert_eq!(status, ERROR3);
                prop_assert!(!f.log.lines().is_empty(), "an Error comes with a log line");
            }
            prop_assert!(
                !f.log.lines().iter().any(|(_, _, l)| l.contains("internal error")),
                "a panic reached the firewall"
            );
            prop_assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, good) }, OK3);
            prop_assert_eq!(f.do_step(start + h, h).0, OK3, "the instance stays usable");
            prop_assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, good) }, OK3);
            Ok(())
        })
        .unwrap();
    f.free_state(good);
}

/// Replaces the value at a random place of `v` (walking `path` as choices among the keys or
/// items met) with `new`.
fn mutate(v: &mut Value, path: &[usize], new: Value) {
    let Some((&choice, rest)) = path.split_first() else {
        *v = new;
        return;
    };
    match v {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(choice % map.len()).unwrap().clone();
            mutate(map.get_mut(&key).unwrap(), rest, new);
        }
        Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            mutate(&mut items[choice % n], rest, new);
        }
        _ => *v = new,
    }
}

/// Mostly hostile numbers (most of a description is numbers), sometimes another type.
fn hostile_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => prop_oneof![
            Just(0.0),
            Just(-1.0),
            Just(1e308),
            Just(-1e308),
            Just(1e-300),
            Just(3.5),
            Just(1e6),
            -100.0..100.0f64
        ]
        .prop_map(|x| serde_json::json!(x)),
        1 => prop_oneof![Just(0i64), Just(-7), Just(1 << 40)].prop_map(|x| serde_json::json!(x)),
        1 => prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            "[a-z_.]{0,12}".prop_map(Value::String),
            Just(serde_json::json!([])),
            Just(serde_json::json!({})),
            Just(serde_json::json!([0.0, 0.0, 0.0])),
        ],
    ]
}

#[test]
fn mutated_catalog_json_loads_or_is_refused_without_a_panic_or_hang() {
    let strategy = (
        0..CATALOG.len(),
        // Long paths: the walk stops at a leaf, so most mutations change one value.
        prop::collection::vec((prop::collection::vec(any::<usize>(), 4..10), hostile_json()), 1..4),
    );
    runner(300, 0x5eed_0003)
        .run(&strategy, |(index, mutations)| {
            let mut v: Value = serde_json::from_str(CATALOG[index].json).unwrap();
            for (path, new) in mutations {
                mutate(&mut v, &path, new);
            }
            let json = v.to_string();
            if let Ok(model) = mbfmu_model::Model::from_json(&json) {
                if let Ok(mut sim) = mbfmu_engine::Simulation::new(&model.description) {
                    let d = &model.description;
                    // Bounded work: a mutated step size cannot make this hang.
                    let _ = sim
                        .advance_within(d.experiment.start + 3.0 * d.experiment.step, mbfmu_engine::Budget::steps(200));
                }
            }
            Ok(())
        })
        .unwrap();
}
