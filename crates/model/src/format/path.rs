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

fn resolve<'a>(root: &'a mut Value, path: &str) -> Result<&'a mut Value, PathError> {
    let err = |reason: String| PathError { path: path.to_string(), reason };
    if path.is_empty() {
        return Err(err("empty path".into()));
    }
    let mut node = root;
    let mut walked = String::new();
    for segment in path.split('.') {
        let here = if walked.is_empty() { "the description".to_string() } else { format!("'{walked}'") };
        node = match node {
            Value::Object(map) => {
                map.get_mut(segment).ok_or_else(|| err(format!("{here} has no field '{segment}'")))?
            }
            Value::Array(items) => {
                if let Ok(index) = segment.parse::<usize>() {
                    let len = items.len();
                    items
                        .get_mut(index)
                        .ok_or_else(|| err(format!("index {index} is out of range for {here} (length {len})")))?
                } else {
                    items
                        .iter_mut()
                        .find(|item| item.get("name").and_then(Value::as_str) == Some(segment))
                        .ok_or_else(|| err(format!("{here} has no element named '{segment}'")))?
                }
            }
            _ => return Err(err(format!("{here} is not an object or array, cannot select '{segment}'"))),
        };
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(segment);
    }
    Ok(node)
}

/// Whether `path` addresses a `"=..."` expression of a document as written.
pub fn is_expression(root: &Value, path: &str) -> bool {
    let mut copy = root.clone();
    resolve(&mut copy, path).is_ok_and(|node| node.as_str().is_some_and(|s| s.starts_with('=')))
}

/// Reads the number at `path`.
pub fn get_number(root: &Value, path: &str) -> Result<f64, PathError> {
    let mut copy = root.clone();
    let node = resolve(&mut copy, path)?;
    node.as_f64()
        .ok_or_else(|| PathError { path: path.to_string(), reason: format!("the value {node} is not a number") })
}

/// Overwrites the number at `path` with `value`.
pub fn set_number(root: &mut Value, path: &str, value: f64) -> Result<(), PathError> {
    let node = resolve(root, path)?;
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
}
