//! Objects whose kind is named by a key: `"type": "tsda"` (forces, motions, valves) or the
//! key present (`"body": ...` in an output). Serde's internally tagged and untagged enums
//! buffer such an object, and an error inside it loses its path and often its field. Here
//! the kind is read first and the object streams on into a derived externally tagged twin of
//! the enum (`#[serde(remote)]`), so paths and serde's messages stay intact; an object whose
//! kind key is not first is buffered, reordered and read the same way.

use super::errors::nest;
use super::keyword::{closest, unknown};
use serde::de::value::{EnumAccessDeserializer, MapAccessDeserializer, MapDeserializer, SeqAccessDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, VariantAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::marker::PhantomData;

/// How the kind of an object is named.
pub struct Kinds {
    /// What the kind is, for messages ("force type").
    pub what: &'static str,
    /// `Some(key)`: the kind is the value of `key`; `None`: the kind is whichever of `words`
    /// is a key of the object, and its value is a field of that kind.
    pub tag: Option<&'static str>,
    /// The kinds, in the spelling of the JSON.
    pub words: &'static [&'static str],
    /// Advice for a word that is no kind but means something elsewhere.
    pub hint: fn(&str) -> Option<&'static str>,
}

/// An enum read through [`deserialize`]: `read_variant` reads the twin from an enum access.
pub trait Tagged: Sized {
    const KINDS: Kinds;
    fn read_variant<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

pub fn deserialize<'de, D: Deserializer<'de>, T: Tagged>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(ObjectVisitor(PhantomData))
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let k = &T::KINDS;
        match k.tag {
            Some(tag) => write!(f, "an object with \"{tag}\": one of {}", k.words.join(", ")),
            None => write!(f, "an object with one of the keys {}", k.words.join(", ")),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let k = &T::KINDS;
        let Some(first) = map.next_key::<String>()? else { return Err(de::Error::custom(missing_kind(k, &[]))) };
        match k.tag {
            Some(tag) if first == tag => {
                let variant = map.next_value_seed(KindSeed(k))?;
                T::read_variant(EnumAccessDeserializer::new(Access { variant, pending_key: None, map }))
            }
            None if k.words.contains(&first.as_str()) => {
                let access = Access { variant: first.clone(), pending_key: Some(first), map };
                T::read_variant(EnumAccessDeserializer::new(access))
            }
            _ => {
                let mut entries = vec![(first, map.next_value::<Value>()?)];
                while let Some(key) = map.next_key::<String>()? {
                    let value = map.next_value::<Value>()?;
                    entries.push((key, value));
                }
                reordered(entries)
            }
        }
    }
}

/// The buffered object with its kind key moved to the front, read again with its own path.
fn reordered<T: Tagged, E: de::Error>(mut entries: Vec<(String, Value)>) -> Result<T, E> {
    let k = &T::KINDS;
    let at = entries.iter().position(|(key, _)| match k.tag {
        Some(tag) => key == tag,
        None => k.words.contains(&key.as_str()),
    });
    let Some(at) = at else {
        let keys: Vec<&str> = entries.iter().map(|(key, _)| key.as_str()).collect();
        return Err(E::custom(missing_kind(k, &keys)));
    };
    let kind = entries.remove(at);
    entries.insert(0, kind);
    let map = MapDeserializer::<_, serde_json::Error>::new(entries.into_iter());
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(MapAccessDeserializer::new(map), &mut track);
    deserialize::<_, T>(tracked).map_err(|e| E::custom(nest(&serde_path_to_error::Error::new(track.path(), e))))
}

fn missing_kind(k: &Kinds, keys: &[&str]) -> String {
    let valid = k.words.join(", ");
    match k.tag {
        Some(tag) => format!("missing field '{tag}' (the {}: one of {valid})", k.what),
        None => {
            let near = keys.iter().find_map(|key| Some((key, closest(key, k.words.iter().copied())?)));
            let missing = format!("missing the key that names the {}: one of {valid}", k.what);
            match near {
                Some((key, near)) => format!("unknown field '{key}'; did you mean '{near}'? ({missing})"),
                None => missing,
            }
        }
    }
}

/// The value of the tag: a string that names a kind.
struct KindSeed(&'static Kinds);

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        let k = self.0;
        let word = String::deserialize(d)?;
        if k.words.contains(&word.as_str()) {
            return Ok(word);
        }
        let message = match (k.hint)(&word) {
            Some(hint) => format!("unknown {} '{word}': {hint}. Valid: {}", k.what, k.words.join(", ")),
            None => unknown(k.what, &word, closest(&word, k.words.iter().copied()), k.words),
        };
        Err(de::Error::custom(message))
    }
}

/// The rest of the object as the twin's variant: the kind read, the map streaming on (with
/// the key-kind's key handed back first, since it is also a field).
struct Access<A> {
    variant: String,
    pending_key: Option<String>,
    map: A,
}

impl<'de, A: MapAccess<'de>> EnumAccess<'de> for Access<A> {
    type Error = A::Error;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), A::Error> {
        let v = seed.deserialize(IntoDeserializer::<A::Error>::into_deserializer(self.variant.as_str()))?;
        Ok((v, self))
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for Access<A> {
    type Error = A::Error;
    fn unit_variant(self) -> Result<(), A::Error> {
        Err(de::Error::custom("expected fields"))
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, A::Error> {
        Err(de::Error::custom("expected fields"))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, A::Error> {
        Err(de::Error::custom("expected fields"))
    }
    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Access<A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        match self.pending_key.take() {
            Some(key) => seed.deserialize(IntoDeserializer::<A::Error>::into_deserializer(key)).map(Some),
            None => self.map.next_key_seed(seed),
        }
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// Reads an array as `S` or an object as `M` (the two forms of an untagged enum), the
/// sequence or map streaming on so that errors inside keep their path.
pub fn seq_or_map<'de, D, T, S, M>(
    d: D,
    expecting: &'static str,
    from_seq: fn(S) -> T,
    from_map: fn(M) -> T,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    S: Deserialize<'de>,
    M: Deserialize<'de>,
{
    struct Forms<T, S, M>(&'static str, fn(S) -> T, fn(M) -> T);
    impl<'de, T, S: Deserialize<'de>, M: Deserialize<'de>> Visitor<'de> for Forms<T, S, M> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
            S::deserialize(SeqAccessDeserializer::new(seq)).map(self.1)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            M::deserialize(MapAccessDeserializer::new(map)).map(self.2)
        }
    }
    d.deserialize_any(Forms(expecting, from_seq, from_map))
}

/// Declares an enum of objects whose kind is named by a key (see [`Kinds`]): derives
/// Serialize and JsonSchema (the enum's serde attributes say the JSON form: `tag = "type"`
/// or `untagged`) and reads through a derived externally tagged twin with the same variants
/// (snake_case, unknown fields denied).
macro_rules! tagged {
    (
        $(#[$meta:meta])*
        pub enum $name:ident reads $twin:ident as $remote:literal ($kinds:expr) { $($body:tt)* }
    ) => {
        #[derive(Clone, Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
        $(#[$meta])*
        pub enum $name { $($body)* }

        #[derive(serde::Deserialize)]
        #[serde(remote = $remote, rename_all = "snake_case", deny_unknown_fields)]
        #[allow(dead_code)]
        enum $twin { $($body)* }

        impl crate::format::tagged::Tagged for $name {
            const KINDS: crate::format::tagged::Kinds = $kinds;
            fn read_variant<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $twin::deserialize(d)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::format::tagged::deserialize(d)
            }
        }
    };
}
pub(crate) use tagged;
