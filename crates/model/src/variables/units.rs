//! SI unit definitions for modelDescription.xml (FMI 2.0.4 Sect. 2.2.2, FMI 3.0 Sect. 2.4.3).

/// Every unit [`unit_definition`] knows, for messages.
pub const KNOWN_UNITS: [&str; 29] = [
    "s",
    "m",
    "kg",
    "rad",
    "1/s",
    "Hz",
    "m/s",
    "m/s2",
    "rad/s",
    "rad/s2",
    "N",
    "N.m",
    "J",
    "W",
    "kg.m2",
    "N/m",
    "N.s/m",
    "N.m/rad",
    "N.m.s/rad",
    "Pa",
    "m2",
    "m3",
    "m3/s",
    "kg/m3",
    "kg/m",
    "kg.m",
    "N.m2",
    "m2/s",
    "V",
];

/// Base-unit exponents (kg, m, s, A, rad) of the units the catalog uses, or None if unknown.
pub fn unit_definition(unit: &str) -> Option<[(&'static str, i32); 5]> {
    let e = |kg, m, s, a, rad| [("kg", kg), ("m", m), ("s", s), ("A", a), ("rad", rad)];
    Some(match unit {
        "s" => e(0, 0, 1, 0, 0),
        "m" => e(0, 1, 0, 0, 0),
        "kg" => e(1, 0, 0, 0, 0),
        "rad" => e(0, 0, 0, 0, 1),
        "1/s" | "Hz" => e(0, 0, -1, 0, 0),
        "m/s" => e(0, 1, -1, 0, 0),
        "m/s2" => e(0, 1, -2, 0, 0),
        "rad/s" => e(0, 0, -1, 0, 1),
        "rad/s2" => e(0, 0, -2, 0, 1),
        "N" => e(1, 1, -2, 0, 0),
        "N.m" | "J" => e(1, 2, -2, 0, 0),
        "W" => e(1, 2, -3, 0, 0),
        "kg.m2" => e(1, 2, 0, 0, 0),
        "N/m" => e(1, 0, -2, 0, 0),
        "N.s/m" => e(1, 0, -1, 0, 0),
        "N.m/rad" => e(1, 2, -2, 0, -1),
        "N.m.s/rad" => e(1, 2, -1, 0, -1),
        "Pa" => e(1, -1, -2, 0, 0),
        "m2" => e(0, 2, 0, 0, 0),
        "m3" => e(0, 3, 0, 0, 0),
        "m3/s" => e(0, 3, -1, 0, 0),
        "kg/m3" => e(1, -3, 0, 0, 0),
        "kg/m" => e(1, -1, 0, 0, 0),
        "kg.m" => e(1, 1, 0, 0, 0),
        "N.m2" => e(1, 3, -2, 0, 0),
        "m2/s" => e(0, 2, -1, 0, 0),
        "V" => e(1, 2, -3, -1, 0),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_listed_unit_is_defined() {
        for u in super::KNOWN_UNITS {
            assert!(super::unit_definition(u).is_some(), "{u}");
        }
    }
}
