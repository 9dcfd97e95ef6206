//! The FMI 2 GUID / FMI 3 instantiationToken: a hash of the model's description and of its
//! variable table, so an archive whose XML and binary disagree is refused at instantiation.

use super::ModelInterface;
use crate::format::Description;
use sha2::{Digest, Sha256};

/// `{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}` from the first 16 bytes of SHA-256 over the
/// canonical JSON of the description and every variable's declaration.
pub fn instantiation_token(description: &Description, interface: &ModelInterface) -> String {
    let mut h = Sha256::new();
    h.update(b"mbfmu-interface-v1\n");
    h.update(serde_json::to_string(description).expect("a description always serializes").as_bytes());
    for v in &interface.variables {
        let line = format!(
            "\n{}|{}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
            v.name, v.value_reference, v.ty, v.causality, v.variability, v.initial, v.start, v.unit, v.min, v.max
        );
        h.update(line.as_bytes());
    }
    for m in &interface.methods {
        h.update(format!("\nmethod {}={}", m.item_name(), m.code()).as_bytes());
    }
    for f in &interface.formulations {
        h.update(format!("\nformulation {}={}", f.item_name(), f.code()).as_bytes());
    }
    let digest = h.finalize();
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("{{{}-{}-{}-{}-{}}}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}
