//! Where a value sits in a description's text: the line and column of a JSON path
//! (`bodies[1].position[0]`), for errors found after the text was turned into a tree (an
//! evaluated `"=..."` expression, a value read from the tree), which serde cannot place.

/// One step of a JSON path.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// The steps of a path as errors write it: `a.b[2].c`, `[0]` (an empty path is the document).
pub fn steps(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indices) = part.split_once('[').map_or((part, ""), |(k, rest)| (k, rest));
        if !key.is_empty() {
            steps.push(Step::Key(key.to_string()));
        }
        for index in indices.split('[') {
            if let Ok(i) = index.trim_end_matches(']').parse() {
                steps.push(Step::Index(i));
            }
        }
    }
    steps
}

/// Line and column (both from 1, the column in characters) where the value at `path` starts in
/// the JSON `text`, or where the deepest existing part of the path starts if the rest is not
/// there; `None` if the text is not JSON this scanner can follow.
pub fn position(text: &str, path: &[Step]) -> Option<(usize, usize)> {
    let mut scanner = Scanner { bytes: text.as_bytes(), pos: 0 };
    let at = scanner.find(path)?;
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    Some((line, column))
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.bytes.get(self.pos).copied()
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    /// A string's contents (escapes kept as written; keys of descriptions have none).
    fn string(&mut self) -> Option<String> {
        self.expect(b'"')?;
        let start = self.pos;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\\' => self.pos += 2,
                b'"' => {
                    let s = String::from_utf8_lossy(&self.bytes[start..self.pos]).into_owned();
                    self.pos += 1;
                    return Some(s);
                }
                _ => self.pos += 1,
            }
        }
        None
    }

    /// Skips one value of any kind.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b'{' | b'[' => {
                let close = if self.bytes[self.pos] == b'{' { b'}' } else { b']' };
                self.pos += 1;
                if self.peek()? == close {
                    self.pos += 1;
                    return Some(());
                }
                loop {
                    if close == b'}' {
                        self.string()?;
                        self.expect(b':')?;
                    }
                    self.skip_value()?;
                    match self.peek()? {
                        b',' => self.pos += 1,
                        c if c == close => {
                            self.pos += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            _ => {
                while self.pos < self.bytes.len() && !b",]} \t\r\n".contains(&self.bytes[self.pos]) {
                    self.pos += 1;
                }
                Some(())
            }
        }
    }

    /// The byte offset of the value at `path`, or of the deepest part of it that exists.
    fn find(&mut self, path: &[Step]) -> Option<usize> {
        self.peek()?;
        let here = self.pos;
        let Some((step, rest)) = path.split_first() else { return Some(here) };
        match (step, self.bytes[self.pos]) {
            (Step::Key(key), b'{') => {
                self.pos += 1;
                if self.peek()? == b'}' {
                    return Some(here);
                }
                loop {
                    let name = self.string()?;
                    self.expect(b':')?;
                    if &name == key {
                        return self.find(rest);
                    }
                    self.skip_value()?;
                    match self.peek()? {
                        b',' => self.pos += 1,
                        _ => return Some(here),
                    }
                }
            }
            (Step::Index(index), b'[') => {
                self.pos += 1;
                if self.peek()? == b']' {
                    return Some(here);
                }
                for _ in 0..*index {
                    self.skip_value()?;
                    match self.peek()? {
                        b',' => self.pos += 1,
                        _ => return Some(here),
                    }
                }
                self.find(rest)
            }
            _ => Some(here),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "{\n  \"bodies\": [\n    {\"name\": \"a\", \"mass\": 1},\n    {\"name\": \"b\",\n     \"mass\": \"=2 * m\", \"position\": [0, \"=L\", 0]}\n  ],\n  \"gravity\": [0, 0, -9.81]\n}";

    #[test]
    fn paths_become_steps() {
        assert_eq!(
            steps("bodies[1].position[0]"),
            [Step::Key("bodies".into()), Step::Index(1), Step::Key("position".into()), Step::Index(0)]
        );
        assert_eq!(steps("[2][3]"), [Step::Index(2), Step::Index(3)]);
        assert!(steps("").is_empty());
    }

    #[test]
    fn values_are_found_where_they_are_written() {
        let at = |p: &str| position(TEXT, &steps(p));
        assert_eq!(at("bodies[1].mass"), Some((5, 14)));
        assert_eq!(at("bodies[1].position[1]"), Some((5, 40)));
        assert_eq!(at("gravity[2]"), Some((7, 21)));
        assert_eq!(at("bodies[0]"), Some((3, 5)));
        assert_eq!(at(""), Some((1, 1)));
    }

    #[test]
    fn a_missing_part_gives_the_deepest_existing_value() {
        let at = |p: &str| position(TEXT, &steps(p));
        // No field 'inertia' in bodies[1]: the object that lacks it.
        assert_eq!(at("bodies[1].inertia"), Some((4, 5)));
        // No fifth body: the list.
        assert_eq!(at("bodies[4].mass"), Some((2, 13)));
        assert_eq!(position("{\"a\": [1, 2", &steps("a[5]")), None);
    }
}
