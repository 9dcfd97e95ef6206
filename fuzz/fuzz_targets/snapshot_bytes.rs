//! Arbitrary bytes as a serialized FMU state: the slave either refuses them with an error or
//! restores a state after which a step runs; it never panics or reads out of bounds. One
//! initialized slave per formulation (index-3, semirecursive with hydraulics, state space),
//! put back to its own good state after every input. Each input is tried as it is and as a
//! patch on the slave's own valid serialization (three bytes per edit: a position and a
//! value to xor), so that the fuzzer also reaches past the format's first checks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mbfmu::slave::{Slave, SlaveSnapshot};
use std::cell::RefCell;
use std::sync::Arc;

fn patched(valid: &[u8], data: &[u8]) -> Vec<u8> {
    let mut b = valid.to_vec();
    for edit in data.chunks_exact(3) {
        let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) % b.len();
        b[at] ^= edit[2];
    }
    if data.len() % 3 == 1 {
        b.truncate(usize::from(data[data.len() - 1]) * b.len() / 256);
    }
    b
}

fn slaves() -> Vec<(Slave, SlaveSnapshot)> {
    ["DoublePendulum", "HydraulicFourBar", "DoublePendulumStateSpace"]
        .iter()
        .map(|name| {
            let entry = mbfmu_model::catalog::find(name).expect("catalog model");
            let model = Arc::new(mbfmu_model::Model::from_catalog(entry).expect("valid model"));
            let mut slave = Slave::new(model);
            slave.setup_experiment(0.0, None).unwrap();
            slave.enter_initialization().unwrap();
            slave.exit_initialization().unwrap();
            let good = slave.snapshot();
            (slave, good)
        })
        .collect()
}

thread_local! {
    static SLAVES: RefCell<Vec<(Slave, SlaveSnapshot)>> = RefCell::new(slaves());
}

fuzz_target!(|data: &[u8]| {
    SLAVES.with(|s| {
        for (slave, good) in s.borrow_mut().iter_mut() {
            let valid = slave.serialize_snapshot(good);
            for bytes in [data.to_vec(), patched(&valid, data)] {
                if let Ok(snapshot) = slave.deserialize_snapshot(&bytes) {
                    if slave.restore(&snapshot).is_ok() {
                        let t = slave.time();
                        let _ = slave.do_step(t, 1e-3);
                    }
                }
                slave.restore(good).expect("a slave's own snapshot restores");
                let _ = slave.take_messages();
            }
        }
    });
});
