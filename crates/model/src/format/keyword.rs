//! Words with a fixed set of values (joint types, output quantities, methods, ...): one table
//! per enum gives the spelling written out, the older spellings still read, and the error
//! for a word that is none of them (the valid choices and the nearest one).

use serde::de::{self, Deserializer, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// An enum of words. Declared with `keyword!`, which derives the rest.
pub trait Keyword: Copy + PartialEq + 'static {
    /// What the word names, for messages ("joint type").
    const WHAT: &'static str;
    /// Every spelling that is read, with its value; the first spelling of a value is the one
    /// written out and listed in messages, later ones are older aliases.
    const WORDS: &'static [(&'static str, Self)];

    /// Advice for a word that is no value here but means something elsewhere.
    fn hint(_word: &str) -> Option<&'static str> {
        None
    }

    /// The spelling written out.
    fn word(self) -> &'static str {
        Self::WORDS.iter().find(|(_, k)| *k == self).map(|(w, _)| *w).expect("every value has a word")
    }

    /// The written spellings of all values, in declaration order.
    fn choices() -> Vec<&'static str> {
        let mut seen: Vec<Self> = Vec::new();
        let mut words = Vec::new();
        for (w, k) in Self::WORDS {
            if !seen.contains(k) {
                seen.push(*k);
                words.push(*w);
            }
        }
        words
    }

    /// The value a spelling names, or the message for a word that names none.
    fn parse(word: &str) -> Result<Self, String> {
        match Self::WORDS.iter().find(|(w, _)| *w == word) {
            Some((_, k)) => Ok(*k),
            None if Self::hint(word).is_some() => {
                let hint = Self::hint(word).unwrap_or_default();
                Err(format!("unknown {} '{word}': {hint}. Valid: {}", Self::WHAT, Self::choices().join(", ")))
            }
            None => {
                let near = closest(word, Self::WORDS.iter().map(|(w, _)| *w)).and_then(|alias| {
                    let k = Self::WORDS.iter().find(|(w, _)| *w == alias).map(|(_, k)| *k)?;
                    Some(k.word())
                });
                Err(unknown(Self::WHAT, word, near, &Self::choices()))
            }
        }
    }
}

/// `unknown joint type 'hinge'; did you mean ...? Valid: revolute, ...`
pub fn unknown(what: &str, word: &str, near: Option<&str>, valid: &[&str]) -> String {
    let mut s = format!("unknown {what} '{word}'");
    match near {
        Some(n) => s.push_str(&format!("; did you mean '{n}'?")),
        None => s.push('.'),
    }
    if !valid.is_empty() {
        s.push_str(&format!(" Valid: {}", valid.join(", ")));
    }
    s
}

/// The candidate nearest to `word`, if near enough to be a likely typo or a shortening.
/// Case, `_` and `-` are ignored, so `half_implicit` finds `halfImplicit`.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let norm = |s: &str| s.chars().filter(|c| *c != '_' && *c != '-').collect::<String>().to_lowercase();
    let w = norm(word);
    let score = |c: &str| {
        let c = norm(c);
        let prefix = if w.len() >= 4 && c.starts_with(&w) { 0.9 } else { 0.0 };
        strsim::normalized_damerau_levenshtein(&w, &c).max(prefix)
    };
    candidates
        .into_iter()
        .map(|c| (score(c), c))
        .filter(|(score, _)| *score >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Reads a keyword from a string.
pub fn deserialize<'de, D: Deserializer<'de>, K: Keyword>(d: D) -> Result<K, D::Error> {
    struct Words<K>(PhantomData<K>);
    impl<K: Keyword> Visitor<'_> for Words<K> {
        type Value = K;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a {} (one of {})", K::WHAT, K::choices().join(", "))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<K, E> {
            K::parse(v).map_err(E::custom)
        }
    }
    d.deserialize_str(Words(PhantomData))
}

/// Lists the aliases in the schema too (marked deprecated), so that files in the older
/// spelling validate as they parse.
pub fn add_aliases<K: Keyword>(schema: &mut schemars::Schema) {
    let canonical = K::choices();
    let aliases: Vec<serde_json::Value> = K::WORDS
        .iter()
        .filter(|(w, _)| !canonical.contains(w))
        .map(|(w, k)| {
            serde_json::json!({
                "type": "string",
                "const": w,
                "deprecated": true,
                "description": format!("Older spelling of '{}'.", k.word()),
            })
        })
        .collect();
    if aliases.is_empty() {
        return;
    }
    let obj = schema.ensure_object();
    if let Some(serde_json::Value::Array(words)) = obj.remove("enum") {
        // Plain list: turn it into one branch per word so aliases can be marked.
        obj.remove("type");
        let branches = words.into_iter().map(|w| serde_json::json!({ "type": "string", "const": w })).collect();
        obj.insert("oneOf".into(), serde_json::Value::Array(branches));
    }
    if let Some(serde_json::Value::Array(branches)) = obj.get_mut("oneOf") {
        branches.extend(aliases);
    }
}

/// Declares an enum of words: `Variant = "word" | "old_word"`. Derives Serialize and
/// JsonSchema (written spelling, variant docs as descriptions) and reads through [`Keyword`].
macro_rules! keyword {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal $(, hint = $hint:expr)?) {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal $(| $alias:literal)* ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, schemars::JsonSchema)]
        #[schemars(transform = crate::format::keyword::add_aliases::<$name>)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $word)] $variant, )*
        }

        impl crate::format::keyword::Keyword for $name {
            const WHAT: &'static str = $what;
            const WORDS: &'static [(&'static str, Self)] =
                &[ $( ($word, $name::$variant), $( ($alias, $name::$variant), )* )* ];
            $(fn hint(word: &str) -> Option<&'static str> {
                let hint: fn(&str) -> Option<&'static str> = $hint;
                hint(word)
            })?
        }

        // Written as the word in every format, also the binary one of FMU states (postcard):
        // the reader below reads words only.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let word = <Self as crate::format::keyword::Keyword>::WORDS
                    .iter()
                    .find(|(_, k)| k == self)
                    .map(|(w, _)| *w)
                    .expect("every variant has a word");
                s.serialize_str(word)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::format::keyword::deserialize(d)
            }
        }
    };
}
pub(crate) use keyword;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_the_intended_word() {
        let words = ["position", "velocity", "angular_velocity"];
        assert_eq!(closest("veloctiy", words), Some("velocity"));
        assert_eq!(closest("angularVelocity", words), Some("angular_velocity"));
        assert_eq!(closest("angular", words), Some("angular_velocity"));
        assert_eq!(closest("xyz", words), None);
    }
}
