//! Reading errors as a user needs them: the JSON path of the bad value
//! (`interface.outputs[1].quantities[0]`), what is wrong, the valid choices and the nearest
//! one, and the line.

use super::keyword::{closest, unknown};
use serde_path_to_error::{Error, Path, Segment};

/// Marks an error raised inside a buffered object (see `tagged.rs`): its own path, relative
/// to where the outer reader stands, travels in front of the message.
const NESTED: char = '\u{1}';

/// `bodies[2].mass` (empty at the top level).
fn path_text(path: &Path) -> String {
    let mut s = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => s.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(key);
            }
            Segment::Enum { .. } => {}
            Segment::Unknown => s.push_str(if s.is_empty() { "?" } else { ".?" }),
        }
    }
    s
}

fn join(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty() || inner.starts_with('[')) {
        (true, _) => inner.to_string(),
        (false, true) => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
    }
}

/// serde_json's message without its " at line L column C".
fn message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(m) if e.line() > 0 => m.to_string(),
        _ => text,
    }
}

/// Splits a message into its nested path and the message proper.
fn split(message: &str) -> (&str, &str) {
    message.strip_prefix(NESTED).and_then(|rest| rest.split_once(NESTED)).unwrap_or(("", message))
}

/// The message of an error inside a buffered object, carrying its path out.
pub fn nest(e: &Error<serde_json::Error>) -> String {
    let m = message(e.inner());
    let (inner, m) = split(&m);
    format!("{NESTED}{}{NESTED}{m}", join(&path_text(e.path()), inner))
}

/// `path: message (line L, column C)`.
pub fn describe(e: &Error<serde_json::Error>) -> String {
    let m = message(e.inner());
    let (inner, m) = split(&m);
    let path = join(&path_text(e.path()), inner);
    let mut s = if path.is_empty() { String::new() } else { format!("{path}: ") };
    s.push_str(&reword(m));
    let json = e.inner();
    if json.line() > 0 {
        s.push_str(&format!(" (line {}, column {})", json.line(), json.column()));
    }
    s
}

/// A serde_json error outside any value (trailing characters).
pub fn describe_plain(e: &serde_json::Error) -> String {
    format!("{} (line {}, column {})", reword(&message(e)), e.line(), e.column())
}

/// Serde's own messages, with quotes as in the rest and a did-you-mean for unknown fields.
fn reword(m: &str) -> String {
    // "unknown field `x`, expected one of `a`, `b`" / "... expected `a` or `b`" / "... there are no fields"
    let quoted: Vec<&str> = m.split('`').skip(1).step_by(2).collect();
    for what in ["field", "variant"] {
        if m.starts_with(&format!("unknown {what} `")) && !quoted.is_empty() {
            let (word, valid) = (quoted[0], &quoted[1..]);
            let s = unknown(what, word, closest(word, valid.iter().copied()), valid);
            return s;
        }
    }
    for what in ["missing field", "duplicate field"] {
        if m.starts_with(&format!("{what} `")) && quoted.len() == 1 {
            return format!("{what} '{}'", quoted[0]);
        }
    }
    m.replace("expected f64", "expected a number")
        .replace("expected u32", "expected a whole number")
        .replace("expected usize", "expected a whole number")
        .replace("a sequence", "an array")
        .replace("expected a map", "expected an object")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_are_reworded() {
        assert_eq!(
            reword("unknown field `stifness`, expected one of `name`, `stiffness`"),
            "unknown field 'stifness'; did you mean 'stiffness'? Valid: name, stiffness"
        );
        assert_eq!(reword("unknown field `x`, expected `a` or `b`"), "unknown field 'x'. Valid: a, b");
        assert_eq!(reword("missing field `mass`"), "missing field 'mass'");
        assert_eq!(reword("invalid type: string \"a\", expected f64"), "invalid type: string \"a\", expected a number");
    }

    #[test]
    fn nested_paths_join() {
        assert_eq!(join("forces[1]", "stiffness"), "forces[1].stiffness");
        assert_eq!(join("a", "[0].b"), "a[0].b");
        assert_eq!(join("", "b"), "b");
        assert_eq!(split("\u{1}x.y\u{1}bad"), ("x.y", "bad"));
        assert_eq!(split("bad"), ("", "bad"));
    }
}
