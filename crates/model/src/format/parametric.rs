//! Parametric descriptions: named parameters (`interface.parameters` entries with a `value`
//! instead of a `path`) and numbers written as expressions of them, strings that start with
//! `=` anywhere a number is expected: `"position": ["=crank + rod / 2", 0, 0]`.
//!
//! The document is evaluated before it is read into the typed description, so every later
//! stage sees plain numbers. A named parameter is an FMU parameter; when the host changes it,
//! the FMU evaluates the document again with the new value (a link length moves every point
//! written in terms of it, and the assembly at initialization closes the loops).

use super::expression::{self, ExpressionError, FUNCTIONS};
use super::validate::{invalid, DescriptionError};
use serde_json::Value;

/// The named parameters of a raw document, in order: (name, value).
pub fn named_parameters(doc: &Value) -> Result<Vec<(String, f64)>, DescriptionError> {
    let mut named: Vec<(String, f64)> = Vec::new();
    let Some(list) = doc.pointer("/interface/parameters").and_then(Value::as_array) else {
        return Ok(named);
    };
    for (i, p) in list.iter().enumerate() {
        let Some(value) = p.get("value") else { continue };
        let location = format!("interface.parameters[{i}]");
        let name = p.get("name").and_then(Value::as_str).unwrap_or("");
        let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            return Err(invalid(
                format!("{location}.name"),
                format!(
                    "'{name}': a parameter with a value is used in expressions, so its name must be letters, \
                     digits and '_', starting with a letter or '_'"
                ),
            ));
        }
        if name == "pi" || FUNCTIONS.iter().any(|(f, _)| *f == name) {
            return Err(invalid(format!("{location}.name"), format!("'{name}' is reserved in expressions")));
        }
        if named.iter().any(|(n, _)| n == name) {
            return Err(invalid(format!("{location}.name"), format!("a second parameter named '{name}'")));
        }
        let value = value.as_f64().filter(|v| v.is_finite()).ok_or_else(|| {
            invalid(
                format!("{location}.value"),
                format!("{value} is not a number (a parameter's value is a plain number)"),
            )
        })?;
        named.push((name.to_string(), value));
    }
    Ok(named)
}

/// Writes `values` into the named parameters' `value` fields of a raw document.
pub fn set_named_parameters(doc: &mut Value, values: &[(String, f64)]) {
    let Some(list) = doc.pointer_mut("/interface/parameters").and_then(Value::as_array_mut) else {
        return;
    };
    for p in list.iter_mut().filter(|p| p.get("value").is_some()) {
        let name = p.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        if let Some((_, v)) = values.iter().find(|(n, _)| *n == name) {
            if let Some(number) = serde_json::Number::from_f64(*v) {
                p["value"] = Value::Number(number);
            }
        }
    }
}

/// Fields that hold text, names and references: never numbers, even if they start with '='.
const TEXT: [&str; 8] = ["name", "description", "source", "notes", "unit", "path", "$schema", "type"];

/// Whether [`evaluate_document`] would find an expression in `node` (read only, so that a
/// document without any needs no evaluated copy).
pub fn has_expressions(node: &Value) -> bool {
    match node {
        Value::String(text) => text.starts_with('='),
        Value::Array(items) => items.iter().any(has_expressions),
        Value::Object(map) => map.iter().any(|(key, item)| !TEXT.contains(&key.as_str()) && has_expressions(item)),
        _ => false,
    }
}

/// Replaces every `"=..."` string of `doc` by its value with `params`; returns the locations
/// of the expressions (`bodies[1].position[0]`).
pub fn evaluate_document(doc: &mut Value, params: &[(String, f64)]) -> Result<Vec<String>, DescriptionError> {
    let mut found = Vec::new();
    walk(doc, &mut String::new(), params, &mut found)?;
    Ok(found)
}

fn walk(
    node: &mut Value,
    location: &mut String,
    params: &[(String, f64)],
    found: &mut Vec<String>,
) -> Result<(), DescriptionError> {
    let len = location.len();
    match node {
        Value::String(text) if text.starts_with('=') => {
            let value = evaluate(&text[1..], params)
                .map_err(|reason| invalid(location.clone(), format!("expression '{text}' {reason}")))?;
            *node = serde_json::Number::from_f64(value).map(Value::Number).expect("evaluate returns finite numbers");
            found.push(location.clone());
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                location.push_str(&format!("[{i}]"));
                walk(item, location, params, found)?;
                location.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut().filter(|(key, _)| !TEXT.contains(&key.as_str())) {
                if !location.is_empty() {
                    location.push('.');
                }
                location.push_str(key);
                walk(item, location, params, found)?;
                location.truncate(len);
            }
        }
        _ => {}
    }
    Ok(())
}

fn evaluate(text: &str, params: &[(String, f64)]) -> Result<f64, String> {
    let lookup = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    let unknown = |name: &str| {
        let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
        let similar = names
            .iter()
            .filter(|n| strsim::levenshtein(n, name) <= 2.max(name.len() / 4))
            .min_by_key(|n| strsim::levenshtein(n, name));
        let hint = similar.map_or(String::new(), |s| format!("; did you mean '{s}'?"));
        if names.is_empty() {
            format!(
                "unknown name '{name}'{hint}: declare it in interface.parameters with a value (no parameters have one)"
            )
        } else {
            format!("unknown name '{name}'{hint} (parameters: {}; constant: pi)", names.join(", "))
        }
    };
    // Columns count the '=' too, as the quoted text shows it.
    expression::evaluate(text, &lookup, &unknown).map_err(|e| ExpressionError { column: e.column + 1, ..e }.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "interface": {"parameters": [
                {"name": "crank", "value": 0.2, "unit": "m"},
                {"name": "mass_of_pin", "path": "bodies.pin.mass"}
            ]},
            "bodies": [{"name": "pin", "mass": "=10 * crank", "position": ["=crank / 2", 0, "=-crank^2"]}]
        })
    }

    #[test]
    fn expressions_are_replaced_by_their_values() {
        let mut d = doc();
        let params = named_parameters(&d).unwrap();
        assert_eq!(params, [("crank".to_string(), 0.2)]);
        let found = evaluate_document(&mut d, &params).unwrap();
        assert_eq!(found, ["bodies[0].mass", "bodies[0].position[0]", "bodies[0].position[2]"]);
        assert_eq!(d["bodies"][0]["position"], json!([0.2 / 2.0, 0, -(0.2f64.powf(2.0))]));
        assert_eq!(d["bodies"][0]["mass"], json!(2.0));

        let mut d = doc();
        set_named_parameters(&mut d, &[("crank".into(), 0.5)]);
        let params = named_parameters(&d).unwrap();
        evaluate_document(&mut d, &params).unwrap();
        assert_eq!(d["bodies"][0]["mass"], json!(5.0));
    }

    #[test]
    fn expressions_are_found_where_they_are_evaluated() {
        let mut d = doc();
        assert!(has_expressions(&d));
        let params = named_parameters(&d).unwrap();
        evaluate_document(&mut d, &params).unwrap();
        assert!(!has_expressions(&d), "none left after evaluation");
        let text_only = json!({"name": "=a", "notes": ["=b"], "bodies": [{"name": "=c", "type": "=d"}]});
        assert!(!has_expressions(&text_only));
        assert!(evaluate_document(&mut text_only.clone(), &[]).unwrap().is_empty());
    }

    #[test]
    fn mistakes_name_the_location_and_the_choices() {
        let mut d = doc();
        d["bodies"][0]["mass"] = json!("=10 * crnk");
        let e = evaluate_document(&mut d, &named_parameters(&doc()).unwrap()).unwrap_err().to_string();
        assert!(e.starts_with("bodies[0].mass: expression '=10 * crnk' at column 7"), "{e}");
        let mut d = doc();
        d["bodies"][0]["name"] = json!("=not a number");
        d["bodies"][0]["notes"] = json!(["=a note"]);
        evaluate_document(&mut d, &named_parameters(&doc()).unwrap()).expect("text fields are not expressions");
        assert_eq!(d["bodies"][0]["name"], json!("=not a number"));
        assert!(e.contains("did you mean 'crank'?") && e.contains("parameters: crank"), "{e}");

        let bad = |p: Value| named_parameters(&json!({"interface": {"parameters": [p]}})).unwrap_err().to_string();
        assert!(bad(json!({"name": "rod.length", "value": 1})).contains("letters, digits and '_'"));
        assert!(bad(json!({"name": "pi", "value": 1})).contains("reserved"));
        assert!(bad(json!({"name": "L", "value": "=2"})).contains("plain number"));
        let twice = json!({"interface": {"parameters": [{"name": "L", "value": 1}, {"name": "L", "value": 2}]}});
        assert!(named_parameters(&twice).unwrap_err().to_string().contains("second parameter named 'L'"));
    }
}
