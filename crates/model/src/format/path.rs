//! Parameter paths: dotted addresses of numbers inside a description's JSON.
//!
//! `bodies.crank.mass` selects the element of `bodies` whose `name` is `crank`, then its
//! `mass`; a numeric segment indexes an array (`gravity.2`, `bodies.0.inertia.1`).

use serde_json::Value;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct PathError {
    pub path: String,
    pub reason: String,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter path '{}': {}", self.path, self.reason)
    }
}

impl std::error::Error for PathError {}

/// What one segment selects in a node: a field of an object or an element of an array.
enum Step {
    Field,
    Element(usize),
}

/// The segments of `path`, each with the part of the path before it (for messages).
fn segments(path: &str) -> Result<impl Iterator<Item = (&str, &str)>, PathError> {
    if path.is_empty() {
        return Err(PathError { path: path.to_string(), reason: "empty path".into() });
    }
    let mut start = 0usize;
    Ok(path.split('.').map(move |segment| {
        let walked = &path[..start.saturating_sub(1)];
        start += segment.len() + 1;
        (segment, walked)
    }))
}

/// Where `segment` leads from `node` (reached by `walked`); the reason if nowhere. Reads
/// only, so that lookups need no copy of the document.
fn select(node: &Value, segment: &str, walked: &str, path: &str) -> Result<Step, PathError> {
    let here = || if walked.is_empty() { "the description".to_string() } else { format!("'{walked}'") };
    let err = |reason: String| PathError { path: path.to_string(), reason };
    match node {
        Value::Object(map) if map.contains_key(segment) => Ok(Step::Field),
        Value::Object(_) => Err(err(format!("{} has no field '{segment}'", here()))),
        Value::Array(items) => match segment.parse::<usize>() {
            Ok(index) if index < items.len() => Ok(Step::Element(index)),
            Ok(index) => Err(err(format!("index {index} is out of range for {} (length {})", here(), items.len()))),
            Err(_) => items
                .iter()
                .position(|item| item.get("name").and_then(Value::as_str) == Some(segment))
                .map(Step::Element)
                .ok_or_else(|| err(format!("{} has no element named '{segment}'", here()))),
        },
        _ => Err(err(format!("{} is not an object or array, cannot select '{segment}'", here()))),
    }
}

/// The node at `path`.
fn resolve<'a>(root: &'a Value, path: &str) -> Result<&'a Value, PathError> {
    let mut node = root;
    for (segment, walked) in segments(path)? {
        node = match select(node, segment, walked, path)? {
            Step::Field => &node[segment],
            Step::Element(index) => &node[index],
        };
    }
    Ok(node)
}

/// The node at `path`, to be changed.
fn resolve_mut<'a>(root: &'a mut Value, path: &str) -> Result<&'a mut Value, PathError> {
    let mut node = root;
    for (segment, walked) in segments(path)? {
        node = match select(node, segment, walked, path)? {
            Step::Field => &mut node[segment],
            Step::Element(index) => &mut node[index],
        };
    }
    Ok(node)
}

/// Whether `path` addresses a `"=..."` expression of a document as written.
pub fn is_expression(root: &Value, path: &str) -> bool {
    resolve(root, path).is_ok_and(|node| node.as_str().is_some_and(|s| s.starts_with('=')))
}

/// Reads the number at `path`.
pub fn get_number(root: &Value, path: &str) -> Result<f64, PathError> {
    let node = resolve(root, path)?;
    node.as_f64()
        .ok_or_else(|| PathError { path: path.to_string(), reason: format!("the value {node} is not a number") })
}

/// Overwrites the number at `path` with `value`.
pub fn set_number(root: &mut Value, path: &str, value: f64) -> Result<(), PathError> {
    let node = resolve_mut(root, path)?;
    if !node.is_number() {
        return Err(PathError { path: path.to_string(), reason: format!("the value {node} is not a number") });
    }
    *node = serde_json::Number::from_f64(value)
        .map(Value::Number)
        .ok_or_else(|| PathError { path: path.to_string(), reason: format!("{value} is not a finite number") })?;
    Ok(())
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_elements_and_indices_resolve() {
        let mut v: Value = serde_json::json!({
            "gravity": [0.0, 0.0, -9.81],
            "bodies": [{"name": "a", "mass": 1.0}, {"name": "b", "mass": 2.0, "inertia": [1.0, 2.0, 3.0]}]
        });
        assert_eq!(get_number(&v, "bodies.b.mass").unwrap(), 2.0);
        assert_eq!(get_number(&v, "bodies.b.inertia.2").unwrap(), 3.0);
        assert_eq!(get_number(&v, "gravity.2").unwrap(), -9.81);
        set_number(&mut v, "bodies.a.mass", 5.0).unwrap();
        assert_eq!(get_number(&v, "bodies.0.mass").unwrap(), 5.0);
    }

    #[test]
    fn errors_say_where() {
        let mut v: Value = serde_json::json!({"bodies": [{"name": "a", "mass": 1.0}]});
        let e = get_number(&v, "bodies.c.mass").unwrap_err();
        assert!(e.reason.contains("no element named 'c'"), "{e}");
        let e = get_number(&v, "bodies.a.mas").unwrap_err();
        assert!(e.reason.contains("'bodies.a' has no field 'mas'"), "{e}");
        let e = set_number(&mut v, "bodies.a", 1.0).unwrap_err();
        assert!(e.reason.contains("not a number"), "{e}");
        let e = set_number(&mut v, "bodies.a.mass", f64::NAN).unwrap_err();
        assert!(e.reason.contains("not a finite number"), "{e}");
    }

    #[test]
    fn lookups_read_the_document_in_place() {
        let v: Value = serde_json::json!({
            "name": "m",
            "gravity": [0.0, 0.0, -9.81],
            "bodies": [{"name": "a", "mass": 1.0, "inertia": [1.0, 2.0, 3.0]}],
            "interface": {"parameters": [{"name": "L", "value": "=2 * a"}]}
        });
        // The node found is the document's own, not a copy's.
        let mass = resolve(&v, "bodies.a.mass").unwrap();
        assert!(std::ptr::eq(mass, &v["bodies"][0]["mass"]));
        assert!(std::ptr::eq(resolve(&v, "bodies.0.inertia.2").unwrap(), &v["bodies"][0]["inertia"][2]));
        assert!(is_expression(&v, "interface.parameters.L.value"));
        assert!(!is_expression(&v, "bodies.a.mass") && !is_expression(&v, "bodies.a.volume"));
        // Every error names the whole path and what went wrong at which part of it.
        let fails = |path: &str| get_number(&v, path).unwrap_err();
        let e = fails("gravity.3");
        assert_eq!(e.path, "gravity.3");
        assert_eq!(e.reason, "index 3 is out of range for 'gravity' (length 3)");
        assert_eq!(e.to_string(), "parameter path 'gravity.3': index 3 is out of range for 'gravity' (length 3)");
        assert_eq!(fails("mass").reason, "the description has no field 'mass'");
        assert_eq!(fails("bodies.b").reason, "'bodies' has no element named 'b'");
        assert_eq!(fails("bodies.a.inertia.x").reason, "'bodies.a.inertia' has no element named 'x'");
        assert_eq!(fails("name.first").reason, "'name' is not an object or array, cannot select 'first'");
        assert_eq!(fails("bodies.a.mass.0").reason, "'bodies.a.mass' is not an object or array, cannot select '0'");
        assert_eq!(
            fails("bodies.a").reason,
            "the value {\"inertia\":[1.0,2.0,3.0],\"mass\":1.0,\"name\":\"a\"} is not a number"
        );
        assert_eq!((fails("").path.as_str(), fails("").reason.as_str()), ("", "empty path"));
    }
}
