//! Lenient parsing of the resource location passed at instantiation.
//!
//! FMI 2 passes a `file:` URI (RFC 3986; FMI 2.0.4 Sect. 2.1.6), FMI 3 a plain path with a
//! trailing separator (FMI 3.0 Sect. 2.3.1). Importers differ (docs/fmi.md#what-importers-demand):
//! `file:/p`, `file:///p`, `file:////p` (fmi4c), with or without trailing slash, sometimes
//! percent-encoded. All of them are accepted; anything unusable gives `None`, never an error.

use std::path::PathBuf;

/// The resources directory named by `location`, or `None` if there is none usable.
pub fn resource_dir(location: &str) -> Option<PathBuf> {
    let location = location.trim();
    if location.is_empty() {
        return None;
    }
    let path = match location.get(..5) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file:") => file_uri_path(&location[5..])?,
        _ if has_other_scheme(location) => return None,
        _ => location.as_bytes().to_vec(),
    };
    let path = trim_trailing_slashes(path);
    if path.is_empty() {
        return None;
    }
    Some(path_from_bytes(path))
}

/// The path of a `file:` URI without its scheme: `/p`, `//authority/p`, `///p`, `////p`.
fn file_uri_path(rest: &str) -> Option<Vec<u8>> {
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            // An authority runs up to the next '/'; only the local host is usable.
            let end = after.find('/').unwrap_or(after.len());
            let authority = &after[..end];
            if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) {
                return None;
            }
            &after[end..]
        }
        None => rest,
    };
    let mut bytes = percent_decode(path);
    // `file:////p` leaves "//p": collapse the leading slashes.
    while bytes.starts_with(b"//") {
        bytes.remove(0);
    }
    // `file:///C:/dir`: a drive letter has no leading slash.
    if bytes.len() >= 3 && bytes[0] == b'/' && bytes[1].is_ascii_alphabetic() && bytes[2] == b':' {
        bytes.remove(0);
    }
    Some(bytes)
}

/// A URI scheme other than `file` (`http:`, ...), but not a drive letter (`C:`).
fn has_other_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(i) if i >= 2 => {
            let scheme = &s[..i];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }
        _ => false,
    }
}

/// Decodes `%XX`; malformed escapes are kept as they are.
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn trim_trailing_slashes(mut path: Vec<u8>) -> Vec<u8> {
    while path.len() > 1 && path.ends_with(b"/") {
        path.pop();
    }
    path
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::resource_dir;
    use std::path::PathBuf;

    fn p(s: &str) -> Option<PathBuf> {
        Some(PathBuf::from(s))
    }

    #[test]
    fn every_importer_spelling_gives_the_same_directory() {
        for uri in [
            "file:/tmp/fmu/resources",
            "file:///tmp/fmu/resources",
            "file:///tmp/fmu/resources/",
            "file:////tmp/fmu/resources",
            "file:////tmp/fmu/resources/",
            "file://localhost/tmp/fmu/resources",
            "FILE:///tmp/fmu/resources",
            "/tmp/fmu/resources/",
            "/tmp/fmu/resources",
            "  file:///tmp/fmu/resources  ",
        ] {
            assert_eq!(resource_dir(uri), p("/tmp/fmu/resources"), "{uri}");
        }
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(resource_dir("file:///tmp/my%20fmu/res%2Fx"), p("/tmp/my fmu/res/x"));
        assert_eq!(resource_dir("file:///tmp/100%25/r"), p("/tmp/100%/r"));
        // Malformed escapes stay literal; plain paths are not decoded.
        assert_eq!(resource_dir("file:///tmp/a%zz%4"), p("/tmp/a%zz%4"));
        assert_eq!(resource_dir("file:///tmp/a%"), p("/tmp/a%"));
        assert_eq!(resource_dir("/tmp/my%20fmu/"), p("/tmp/my%20fmu"));
    }

    #[test]
    fn unusable_locations_give_none() {
        assert_eq!(resource_dir(""), None);
        assert_eq!(resource_dir("   "), None);
        assert_eq!(resource_dir("file:"), None);
        assert_eq!(resource_dir("file://"), None);
        assert_eq!(resource_dir("http://example.com/resources"), None);
        assert_eq!(resource_dir("file://otherhost/share/resources"), None);
    }

    #[test]
    fn drive_letters_and_root() {
        assert_eq!(resource_dir("file:///C:/temp/MyFMU/resources"), p("C:/temp/MyFMU/resources"));
        assert_eq!(resource_dir("C:/temp/MyFMU/resources/"), p("C:/temp/MyFMU/resources"));
        assert_eq!(resource_dir("file:///"), p("/"));
    }
}
