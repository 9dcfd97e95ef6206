//! Unpacked FMU archives, kept in the cache directory and reused while the archive's bytes
//! stay the same: unpacking an FMU inflates and writes its whole binary (several megabytes)
//! and cost more than a short simulation.
//!
//! An entry is named by the SHA-256 of the archive's bytes (FIPS 180-4), so a changed
//! archive, whatever its name, size or time stamps, gets a new entry, and an entry holds
//! exactly the extraction of the bytes it is named after. An entry appears complete or not
//! at all: the archive is extracted into a temporary directory beside it and renamed. A
//! process that uses an entry holds a shared `flock` on `<entry>.lock` for as long as its
//! FMU is loaded; eviction (of all but the [`KEEP`] most recently used entries) takes the
//! lock exclusively and skips entries in use. Without a usable cache directory the archive is
//! unpacked into a temporary directory as before.
//!
//! Hashing a large archive costs milliseconds, so the key of an archive that was hashed is
//! remembered with the file's identity (device, inode, size, modification and change times;
//! `<dev>-<ino>.stat`) and reused while that identity is unchanged. Any write to the file
//! changes its change time, which no user can set; an archive whose change time was less than
//! [`SETTLED`] before it was hashed is not remembered, since a write within the same clock
//! tick could leave the times unchanged (the "racily clean" entries of git's index).
//!
//! The `fmi` crate deletes the directory it loads from, so it gets a temporary directory of
//! symbolic links to the entry's top-level files, less the folders that only describe the FMU
//! (`documentation`, `terminalsAndIcons`). That directory lives for one run, so it goes to a
//! memory file system where one is at hand (`$XDG_RUNTIME_DIR`, else `/dev/shm`): on a disk
//! file system each link and its removal is a journalled metadata write, which on a busy
//! machine costs the run a scheduling tick or more apiece.

use crate::error::{Context, Error, Result};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Entries kept besides the ones in use (each is an unpacked FMU of a few megabytes).
const KEEP: usize = 8;

/// How long an archive must have been unchanged for its key to be remembered.
const SETTLED: Duration = Duration::from_secs(2);

/// Temporary extractions older than this are left over from a process that was killed.
const STALE: Duration = Duration::from_secs(24 * 3600);

/// An unpacked archive, ready for the `fmi` crate.
pub struct Unpacked {
    /// The directory to load from (removed when dropped; the cache entry stays).
    pub dir: tempfile::TempDir,
    /// The shared lock on the cache entry, held while the FMU may be in use.
    pub lease: Option<File>,
}

/// Unpacks `path` through the cache (see the module documentation).
pub fn unpack(path: &Path) -> Result<Unpacked> {
    let root = crate::catalog_fmu::cache_dir().join("unpacked");
    unpack_in(&root, path)
}

/// [`unpack`] with the cache in `root`.
pub fn unpack_in(root: &Path, path: &Path) -> Result<Unpacked> {
    match cached_entry(root, path) {
        Ok(Some((entry, lease))) => Ok(Unpacked { dir: links_to(&entry)?, lease: Some(lease) }),
        // No usable cache directory: a private extraction.
        Ok(None) | Err(_) => {
            let bytes = std::fs::read(path).context(path.display())?;
            let dir =
                tempfile::Builder::new().prefix("mbfmu-").tempdir().context("cannot create a temporary directory")?;
            extract(path, &bytes, dir.path())?;
            Ok(Unpacked { dir, lease: None })
        }
    }
}

/// The modelDescription.xml of the archive at `path`, read from its cache entry when the
/// archive's identity is remembered and the entry exists (no central directory to read, no
/// inflating); None otherwise: then read it from the archive.
pub fn cached_description(path: &Path) -> Option<String> {
    cached_description_in(&crate::catalog_fmu::cache_dir().join("unpacked"), path)
}

/// [`cached_description`] with the cache in `root`.
fn cached_description_in(root: &Path, path: &Path) -> Option<String> {
    let key = Identity::of(path).ok()??.remembered(root)?;
    // The entry holds the extraction of exactly the bytes its key names.
    std::fs::read_to_string(root.join(key).join("modelDescription.xml")).ok()
}

/// The cache entry of the archive at `path` (extracted if missing) and the shared lock on
/// it; None if the cache directory cannot be created.
fn cached_entry(root: &Path, path: &Path) -> Result<Option<(PathBuf, File)>> {
    if std::fs::create_dir_all(root).is_err() {
        return Ok(None);
    }
    let identity = Identity::of(path)?;
    let mut bytes = None;
    let key = match identity.as_ref().and_then(|id| id.remembered(root)) {
        Some(key) => key,
        None => {
            let read = std::fs::read(path).context(path.display())?;
            let key: String = Sha256::digest(&read).iter().map(|b| format!("{b:02x}")).collect();
            if let Some(id) = &identity {
                id.remember(root, &key);
            }
            bytes = Some(read);
            key
        }
    };
    let entry = root.join(&key);
    let lease = lock(&root.join(format!("{key}.lock")), libc::LOCK_SH)?;
    let added = !entry.join("modelDescription.xml").is_file();
    if added {
        let bytes = match bytes {
            Some(b) => b,
            None => std::fs::read(path).context(path.display())?,
        };
        // The file may have changed since its identity was remembered: extract what its
        // bytes are named after, never other bytes under this name.
        let actual: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        if actual != key {
            // Changed after its identity was remembered (racily): forget it and start again,
            // which hashes the file.
            if let Some(id) = &identity {
                let _ = std::fs::remove_file(id.file(root));
            }
            drop(lease);
            return cached_entry(root, path);
        }
        let fresh = tempfile::Builder::new().prefix(".tmp-").tempdir_in(root).context(root.display())?;
        extract(path, &bytes, fresh.path())?;
        match std::fs::rename(fresh.path(), &entry) {
            Ok(()) => {
                let _kept = fresh.keep();
            }
            // Another process renamed its extraction first (ours is removed on drop).
            Err(_) if entry.join("modelDescription.xml").is_file() => {}
            Err(e) => return Err(Error::msg(format!("cannot store the unpacked FMU in {}: {e}", entry.display()))),
        }
    }
    // The lock file's time records the last use, for eviction; the cache grows only when an
    // entry is added, so only then is it trimmed (a listing and a stat per file).
    let _ = lease.set_modified(SystemTime::now());
    if added {
        evict(root, &key);
    }
    Ok(Some((entry, lease)))
}

/// What identifies a file's content without reading it (see the module documentation).
#[derive(Debug, PartialEq)]
struct Identity {
    dev: u64,
    ino: u64,
    text: String,
}

impl Identity {
    /// The identity of `path`; None if it changed too recently to be trusted.
    fn of(path: &Path) -> Result<Option<Identity>> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).context(path.display())?;
        let changed = SystemTime::UNIX_EPOCH + Duration::new(m.ctime().max(0) as u64, m.ctime_nsec() as u32);
        if SystemTime::now().duration_since(changed).map_or(true, |age| age < SETTLED) {
            return Ok(None);
        }
        let text = format!("{} {} {} {} {}", m.size(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec());
        Ok(Some(Identity { dev: m.dev(), ino: m.ino(), text }))
    }

    fn file(&self, root: &Path) -> PathBuf {
        root.join(format!("{:x}-{:x}.stat", self.dev, self.ino))
    }

    /// The key remembered for this identity.
    fn remembered(&self, root: &Path) -> Option<String> {
        let stored = std::fs::read_to_string(self.file(root)).ok()?;
        let (text, key) = stored.trim_end().rsplit_once(' ')?;
        (text == self.text && key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit())).then(|| key.to_string())
    }

    /// Remembers `key` for this identity (written whole with a rename; failures only cost a
    /// later hash).
    fn remember(&self, root: &Path, key: &str) {
        let Ok(mut temp) = tempfile::Builder::new().prefix(".tmp-").tempfile_in(root) else { return };
        if writeln!(temp, "{} {key}", self.text).is_ok() {
            let _ = temp.persist(self.file(root));
        }
    }
}

/// Extracts the archive `bytes` (read from `path`) into `dir`.
fn extract(path: &Path, bytes: &[u8], dir: &Path) -> Result<()> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).context(path.display())?;
    archive.extract(dir).context(format!("cannot unpack {}", path.display()))
}

/// Top-level folders of an FMU that neither the loader nor the model reads (FMI 3.0
/// Sect. 2.5.1: documentation, icons and terminals for tools).
const DESCRIPTIVE: [&str; 2] = ["documentation", "terminalsAndIcons"];

/// A temporary directory with a symbolic link to each top-level file of `entry` but the
/// [`DESCRIPTIVE`] folders, on a memory file system if there is one (see the module
/// documentation).
fn links_to(entry: &Path) -> Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("mbfmu-");
    let dir = memory_dirs()
        .find_map(|parent| builder.tempdir_in(parent).ok())
        .map_or_else(|| builder.tempdir(), Ok)
        .context("cannot create a temporary directory")?;
    for item in std::fs::read_dir(entry).context(entry.display())? {
        let item = item.context(entry.display())?;
        if DESCRIPTIVE.iter().any(|d| item.file_name() == *d) {
            continue;
        }
        std::os::unix::fs::symlink(item.path(), dir.path().join(item.file_name())).context(format!(
            "cannot link {} into {}",
            item.path().display(),
            dir.path().display()
        ))?;
    }
    Ok(dir)
}

/// Directories on memory file systems for short-lived files: the user's runtime directory
/// (XDG Base Directory Specification), then `/dev/shm`.
fn memory_dirs() -> impl Iterator<Item = PathBuf> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()).map(PathBuf::from);
    runtime.into_iter().chain([PathBuf::from("/dev/shm")]).filter(|d| d.is_dir())
}

/// Opens `path` (created if missing) and locks it with `operation` (LOCK_SH or LOCK_EX, with
/// LOCK_NB to fail instead of waiting). A lock file that was removed while we waited (by an
/// eviction) is not the entry's lock any more: then the new one is locked.
fn lock(path: &Path, operation: libc::c_int) -> Result<File> {
    loop {
        let file = File::options().create(true).truncate(false).write(true).open(path).context(path.display())?;
        // SAFETY: flock on a file descriptor that `file` owns.
        if unsafe { libc::flock(file.as_raw_fd(), operation) } != 0 {
            return Err(Error::msg(format!("cannot lock {}: {}", path.display(), std::io::Error::last_os_error())));
        }
        if same_file(&file, path) {
            return Ok(file);
        }
    }
}

fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Removes the entries beyond the [`KEEP`] most recently used that no process uses, and
/// temporary extractions left over by killed processes. Failures only leave files behind.
fn evict(root: &Path, current: &str) {
    let Ok(items) = std::fs::read_dir(root) else { return };
    let mut entries: Vec<(SystemTime, String)> = Vec::new();
    let now = SystemTime::now();
    for item in items.flatten() {
        let name = item.file_name().to_string_lossy().into_owned();
        let modified = item.metadata().and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
        if let Some(key) = name.strip_suffix(".lock") {
            if key != current {
                entries.push((modified, key.to_string()));
            }
        } else if name.starts_with(".tmp-") && now.duration_since(modified).is_ok_and(|age| age > STALE) {
            let _ = std::fs::remove_dir_all(item.path()).or_else(|_| std::fs::remove_file(item.path()));
        } else if name.ends_with(".stat") && now.duration_since(modified).is_ok_and(|age| age > 30 * STALE) {
            // Identities of files not used for a month (only a hash is lost).
            let _ = std::fs::remove_file(item.path());
        }
    }
    entries.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (_, key) in entries.into_iter().skip(KEEP.saturating_sub(1)) {
        let lock_path = root.join(format!("{key}.lock"));
        let Ok(guard) = lock(&lock_path, libc::LOCK_EX | libc::LOCK_NB) else { continue };
        // Out of the entry's name first, so that no process starts to use a half-removed entry.
        let doomed = root.join(format!(".tmp-evicted-{key}"));
        if std::fs::rename(root.join(&key), &doomed).is_ok() {
            let _ = std::fs::remove_dir_all(&doomed);
        }
        let _ = std::fs::remove_file(&lock_path);
        drop(guard);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;

    /// A small archive with a modelDescription.xml and a "binary" of the given content.
    fn archive(path: &Path, binary: &[u8]) {
        let mut zip = zip::ZipWriter::new(File::create(path).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        zip.start_file("modelDescription.xml", options).unwrap();
        zip.write_all(b"<fmiModelDescription/>").unwrap();
        zip.start_file("binaries/x86_64-linux/m.so", options).unwrap();
        zip.write_all(binary).unwrap();
        zip.finish().unwrap();
    }

    fn binary(u: &Unpacked) -> std::fs::Metadata {
        std::fs::metadata(u.dir.path().join("binaries/x86_64-linux/m.so")).unwrap()
    }

    #[test]
    fn an_unchanged_archive_reuses_its_extraction_and_a_changed_one_does_not() {
        let (cache, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let fmu = work.path().join("m.fmu");
        archive(&fmu, b"version 1");
        let first = unpack_in(cache.path(), &fmu).unwrap();
        let second = unpack_in(cache.path(), &fmu).unwrap();
        assert_eq!(binary(&first).ino(), binary(&second).ino(), "the same extraction");
        // Same name and size, other content: a new extraction with the new bytes.
        archive(&fmu, b"version 2");
        let third = unpack_in(cache.path(), &fmu).unwrap();
        assert_ne!(binary(&first).ino(), binary(&third).ino());
        let read = |u: &Unpacked| std::fs::read(u.dir.path().join("binaries/x86_64-linux/m.so")).unwrap();
        assert_eq!(read(&first), b"version 1");
        assert_eq!(read(&third), b"version 2");
        // Dropping the loader's directory leaves the cache entry in place.
        let entry = std::fs::canonicalize(first.dir.path().join("modelDescription.xml")).unwrap();
        drop(first);
        assert!(entry.is_file());
    }

    #[test]
    fn the_loader_sees_the_binary_and_description_but_not_the_documentation() {
        let (cache, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let fmu = work.path().join("m.fmu");
        let mut zip = zip::ZipWriter::new(File::create(&fmu).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        for name in
            ["modelDescription.xml", "binaries/x86_64-linux/m.so", "resources/table.txt", "documentation/index.html"]
        {
            zip.start_file(name, options).unwrap();
            zip.write_all(name.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
        let u = unpack_in(cache.path(), &fmu).unwrap();
        for name in ["modelDescription.xml", "binaries/x86_64-linux/m.so", "resources/table.txt"] {
            assert_eq!(std::fs::read_to_string(u.dir.path().join(name)).unwrap(), name);
        }
        assert!(!u.dir.path().join("documentation").exists());
        // The cache entry itself is complete.
        let entry = std::fs::canonicalize(u.dir.path().join("modelDescription.xml")).unwrap();
        assert!(entry.parent().unwrap().join("documentation/index.html").is_file());
    }

    #[test]
    fn a_remembered_identity_skips_the_hash_and_a_rewrite_changes_it() {
        let (cache, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let fmu = work.path().join("m.fmu");
        archive(&fmu, b"version 1");
        // Not remembered while the file is fresh; remembered once it has settled.
        assert!(Identity::of(&fmu).unwrap().is_none());
        drop(unpack_in(cache.path(), &fmu).unwrap());
        assert_eq!(cached_description_in(cache.path(), &fmu), None, "fresh: not remembered");
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let id = Identity::of(&fmu).unwrap().expect("settled");
        assert_eq!(cached_description_in(cache.path(), &fmu), None, "not hashed since it settled");
        drop(unpack_in(cache.path(), &fmu).unwrap());
        assert!(id.remembered(cache.path()).is_some());
        assert_eq!(cached_description_in(cache.path(), &fmu).as_deref(), Some("<fmiModelDescription/>"));
        // A rewrite with other bytes of the same size: a new identity (change time), so the
        // next run hashes it and gets the new content, and its description is not taken from
        // the old entry.
        archive(&fmu, b"version 2");
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        assert_ne!(Identity::of(&fmu).unwrap().expect("settled"), id);
        assert_eq!(cached_description_in(cache.path(), &fmu), None);
        let u = unpack_in(cache.path(), &fmu).unwrap();
        assert_eq!(std::fs::read(u.dir.path().join("binaries/x86_64-linux/m.so")).unwrap(), b"version 2");
        assert!(cached_description_in(cache.path(), &fmu).is_some());
    }

    #[test]
    fn eviction_keeps_recent_and_used_entries() {
        let (cache, work) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let fmu = |i: usize| {
            let path = work.path().join(format!("m{i}.fmu"));
            archive(&path, format!("binary {i}").as_bytes());
            path
        };
        // The first stays in use for the whole test; the others are dropped at once.
        let in_use = unpack_in(cache.path(), &fmu(0)).unwrap();
        let used_entry = std::fs::canonicalize(in_use.dir.path().join("modelDescription.xml")).unwrap();
        for i in 1..=KEEP + 3 {
            // Distinct modification times order the entries.
            std::thread::sleep(Duration::from_millis(5));
            drop(unpack_in(cache.path(), &fmu(i)).unwrap());
        }
        let entries = std::fs::read_dir(cache.path())
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_dir() && !e.file_name().to_string_lossy().starts_with('.'))
            .count();
        assert_eq!(entries, KEEP + 1, "KEEP recent entries and the one in use");
        assert!(used_entry.is_file(), "an entry in use is never removed");
        assert_eq!(std::fs::read(in_use.dir.path().join("binaries/x86_64-linux/m.so")).unwrap(), b"binary 0");
    }
}
