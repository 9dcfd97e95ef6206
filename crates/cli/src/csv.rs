//! CSV output: a header row of variable names, then one row per communication point.
//! Floats are written in their shortest round-trip form, so the file holds exactly the
//! values the FMU returned. Rows are formatted and written by a thread of their own while
//! the simulation goes on.

use crate::error::{Context, Error, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, TryRecvError};
use std::thread::JoinHandle;

/// Bytes gathered before a write to the file (a few hundred rows of a typical model).
const BUFFER: usize = 256 * 1024;

/// Rows handed to the writer thread at a time.
const BLOCK_ROWS: usize = 256;

/// Rows per block in the last [`BLOCK_ROWS`] of a run of known length, so that at the run's
/// end the writer has at most this many rows left to format, not a whole block (a quarter of
/// a millisecond for a model of 30 outputs).
const TAIL_ROWS: usize = 32;

/// Memory of blocks the writer thread allocates and maps before the first rows arrive (at
/// most: no more than a run of known length needs), so that the stepping thread does not
/// take their page faults (1.5-3 us each on a virtual machine, 16 per block of 32 columns).
const PREPARED_BYTES: usize = 512 << 10;

/// How long the writer thread waits before it looks for rows again (see [`next_block`]): a
/// block of 256 rows of 30 values takes it about 0.2 ms to format.
const POLL: std::time::Duration = std::time::Duration::from_micros(100);

/// Looks for rows before the writer thread sleeps until they come.
const POLLS: u32 = 10;

/// Memory the rows waiting for the writer may take before the simulation waits for it. The
/// writer formats a row about as fast as a small model computes one: a backlog of a few blocks
/// is normal, and waiting on a full queue costs the stepping thread a wake-up each time.
const BACKLOG_BYTES: usize = 16 << 20;

/// Writes rows in a thread of its own, so that formatting and writing overlap the
/// simulation: `row` copies the values into a block of rows, full blocks go to the writer
/// thread and come back empty for reuse (no allocation per row or value once the first
/// blocks exist). The thread prepares its buffer and the first blocks while the caller is
/// still loading the model, and empties the file only when the first row arrives: a run that
/// gives no row (it failed before its start) leaves the file as it was, and removes it if
/// `create` made it.
pub struct CsvWriter {
    path: PathBuf,
    /// Values per row (the time and the data columns).
    width: usize,
    /// Rows gathered for the writer: per row the time, then the data columns.
    block: Vec<f64>,
    /// The length at which `block` goes to the writer; zero when there is no block (before
    /// the first row, after each full block and after the last row).
    block_end: usize,
    to_writer: Option<mpsc::SyncSender<Vec<f64>>>,
    /// Blocks the writer has written, for reuse.
    written: mpsc::Receiver<Vec<f64>>,
    /// What the writer thread reports when it has written the last row and closed the file.
    done: mpsc::Receiver<std::io::Result<()>>,
    writer: Option<JoinHandle<()>>,
    pub rows: usize,
    /// From this row on, blocks of [`TAIL_ROWS`] (the last [`BLOCK_ROWS`] of a run of known
    /// length, so that less of the formatting is left when it ends).
    tail_from: usize,
}

impl CsvWriter {
    /// `header` includes the time column; `integer` flags the data columns after it; `rows` is
    /// the number of rows the run will give, if known. Fails at once if the file cannot be
    /// opened for writing.
    pub fn create(path: &Path, header: &[&str], integer: Vec<bool>, rows: Option<usize>) -> Result<CsvWriter> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).context(format!("cannot create {}", dir.display()))?;
        }
        // Opened here, so that a path that cannot be written fails before the run; emptied by
        // the writer thread at the first row (as File::create would): freeing the blocks of an
        // earlier run's file takes a millisecond or more, which the simulation need not wait for.
        let opened = |new| File::options().write(true).create_new(new).open(path);
        let (file, created) = match opened(true) {
            Ok(file) => (Ok(file), true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => (opened(false), false),
            Err(e) => (Err(e), false),
        };
        let file = file.context(format!("cannot create {}", path.display()))?;
        let mut out = Vec::with_capacity(BUFFER + 1024);
        let names: Vec<String> = header.iter().map(|h| quote(h)).collect();
        out.extend_from_slice(names.join(",").as_bytes());
        out.push(b'\n');
        let width = integer.len() + 1;
        let block_bytes = BLOCK_ROWS * width * size_of::<f64>();
        let backlog = (BACKLOG_BYTES / block_bytes).max(2);
        // Blocks in use at once: at most those the queue holds, one being filled and one
        // being written; no more than the run has rows for.
        let needed = rows.map_or(usize::MAX, |r| r.div_ceil(BLOCK_ROWS));
        let prepare = Preparation {
            blocks: (PREPARED_BYTES / block_bytes).clamp(1, backlog + 2).min(needed),
            block_len: BLOCK_ROWS * width,
            // About 20 bytes per value of the text.
            out_bytes: rows.map_or(usize::MAX, |r| r.saturating_mul(width * 20)),
        };
        let (to_writer, blocks) = mpsc::sync_channel::<Vec<f64>>(backlog);
        let (give_back, written) = mpsc::channel();
        let (report, done) = mpsc::sync_channel(1);
        let owned_path = path.to_path_buf();
        let writer = std::thread::Builder::new()
            .name("csv writer".into())
            .spawn(move || {
                let result = match prepare.run(&mut out, &blocks, &give_back) {
                    Some(first) => write_rows(file, &mut out, first, blocks, give_back, width, &integer),
                    // No row: the run ended before its start; the file stays as it was.
                    None if created => {
                        drop(file);
                        std::fs::remove_file(&owned_path)
                    }
                    None => Ok(()),
                };
                // Reported before the thread lets go of its memory: the run need not wait for that.
                let _ = report.send(result);
            })
            .context("cannot start the CSV writer thread")?;
        Ok(CsvWriter {
            path: path.to_path_buf(),
            width,
            block: Vec::new(),
            block_end: 0,
            to_writer: Some(to_writer),
            written,
            done,
            writer: Some(writer),
            rows: 0,
            tail_from: rows.map_or(usize::MAX, |r| r.saturating_sub(BLOCK_ROWS)),
        })
    }

    /// One row (`values` has one value per data column).
    #[inline]
    pub fn row(&mut self, time: f64, values: &[f64]) -> Result<()> {
        debug_assert_eq!(values.len() + 1, self.width);
        if self.block_end == 0 {
            self.take_block()?;
        }
        self.block.push(time);
        self.block.extend_from_slice(values);
        self.rows += 1;
        if self.block.len() == self.block_end {
            self.hand_over()?;
        }
        Ok(())
    }

    /// An empty block for the next rows: one the writer prepared or has written, else a new
    /// one; how many rows it takes before it goes to the writer.
    fn take_block(&mut self) -> Result<()> {
        if self.to_writer.is_none() {
            return Err(Error::msg(format!(
                "cannot write {}: the writer stopped (after an error, or the last row was given)",
                self.path.display()
            )));
        }
        self.block = self.written.try_recv().unwrap_or_else(|_| empty_block(BLOCK_ROWS * self.width));
        // The first row goes alone: the writer then empties the file (a millisecond for an
        // earlier run's few megabytes) while the next rows are computed, not a block later.
        // No block reaches into the last rows of a run of known length, which go in blocks of
        // TAIL_ROWS.
        let rows = match self.rows {
            0 => 1,
            done if done >= self.tail_from => TAIL_ROWS,
            done => BLOCK_ROWS.min(self.tail_from - done),
        };
        self.block_end = rows * self.width;
        Ok(())
    }

    /// The full block goes to the writer; if it stopped on an error, that is reported. A block
    /// of the run's last rows also ends the writer's wait between its looks for rows (see
    /// [`next_block`]): the rows it would otherwise find up to a poll later are the ones the
    /// run's end waits for (0.1-0.2 ms of formatting at every end, against a wake-up of a few
    /// microseconds for each of the last blocks).
    fn hand_over(&mut self) -> Result<()> {
        self.block_end = 0;
        let Some(to_writer) = &self.to_writer else { return Ok(()) };
        if to_writer.send(std::mem::take(&mut self.block)).is_err() {
            return self.join();
        }
        if self.rows > self.tail_from {
            if let Some(writer) = &self.writer {
                writer.thread().unpark();
            }
        }
        Ok(())
    }

    /// Hands the last rows to the writer thread and tells it that no more follow, so that it
    /// finishes the file while the caller does other work (such as freeing the FMU) before
    /// [`CsvWriter::finish`]. No rows can be added afterwards.
    pub fn end_rows(&mut self) {
        if !self.block.is_empty() {
            if let Some(w) = &self.to_writer {
                let _ = w.send(std::mem::take(&mut self.block));
            }
        }
        self.to_writer = None;
        self.block_end = 0;
        // The writer may be waiting before it looks for rows again (see `next_block`).
        if let Some(writer) = &self.writer {
            writer.thread().unpark();
        }
    }

    /// Writes the last rows and closes the file.
    pub fn finish(mut self) -> Result<()> {
        self.end_rows();
        self.join()
    }

    /// Ends the writer thread and returns what it reported.
    fn join(&mut self) -> Result<()> {
        self.to_writer = None;
        let Some(writer) = self.writer.take() else { return Ok(()) };
        match self.done.recv() {
            // The thread ends on its own (dropping the handle detaches it).
            Ok(result) => result.context(format!("cannot write {}", self.path.display())),
            // It panicked before reporting.
            Err(_) => {
                let _ = writer.join();
                Err(Error::msg(format!("the CSV writer of {} failed", self.path.display())))
            }
        }
    }
}

impl Drop for CsvWriter {
    /// A writer dropped without [`CsvWriter::finish`] (a run that ended with an error) still
    /// writes the rows it was given.
    fn drop(&mut self) {
        self.end_rows();
        let _ = self.join();
    }
}

/// What the writer thread does before the first rows arrive.
struct Preparation {
    /// Empty blocks to make for the stepping thread.
    blocks: usize,
    /// Values per block.
    block_len: usize,
    /// Bytes of the output buffer the run will use, at most.
    out_bytes: usize,
}

impl Preparation {
    /// Maps the output buffer's pages and hands empty, mapped blocks to the stepping thread
    /// (through `give_back`, where it takes written blocks from), stopping early when rows
    /// arrive. Returns the first block of rows, None if the run gave none.
    fn run(
        self,
        out: &mut Vec<u8>,
        blocks: &mpsc::Receiver<Vec<f64>>,
        give_back: &mpsc::Sender<Vec<f64>>,
    ) -> Option<Vec<f64>> {
        let header = out.len();
        let used = (out.capacity() - header).min(self.out_bytes);
        map_now(out[header..].as_ptr(), used);
        for _ in 0..self.blocks {
            match blocks.try_recv() {
                Ok(first) => return Some(first),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => {}
            }
            if give_back.send(empty_block(self.block_len)).is_err() {
                break;
            }
        }
        next_block(blocks)
    }
}

/// An empty block with room for `len` values, its memory mapped at once (see [`map_now`]).
fn empty_block(len: usize) -> Vec<f64> {
    let block: Vec<f64> = Vec::with_capacity(len);
    map_now(block.as_ptr().cast(), len * size_of::<f64>());
    block
}

/// Maps the whole pages among the `bytes` from `start` now, with one system call
/// (MADV_POPULATE_WRITE, Linux 5.14), instead of a page fault at the first write to each
/// (1.5-3 us apiece on a virtual machine, 16 per block of rows of 32 values). Where the kernel
/// does not support it, the pages are mapped at the first write as usual.
fn map_now(start: *const u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let first = (start as usize).next_multiple_of(PAGE);
        let end = (start as usize + bytes) & !(PAGE - 1);
        if end > first {
            // SAFETY: the range lies within one allocation of this process; populating only
            // maps its pages (their contents stay as they are).
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_POPULATE_WRITE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (start, bytes);
}

/// The next block of rows, None when no more will come. While rows come about as fast as they
/// are written, the writer thread looks for them every [`POLL`] instead of sleeping on the
/// channel: the stepping thread then hands blocks over without waking it (a futex wake and
/// an inter-processor interrupt, about 9 us of the stepping thread's time each on a virtual
/// machine, 20 per DoublePendulum run). After [`POLLS`] empty looks (a slow model) it sleeps
/// until rows come. [`CsvWriter::end_rows`] ends a wait at once.
fn next_block(blocks: &mpsc::Receiver<Vec<f64>>) -> Option<Vec<f64>> {
    for _ in 0..POLLS {
        match blocks.try_recv() {
            Ok(block) => return Some(block),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => std::thread::park_timeout(POLL),
        }
    }
    blocks.recv().ok()
}

/// The writer thread's work from the first block of rows on: empties the file, then formats
/// the blocks of rows (`width` values each) into `out` and writes it whenever it is full;
/// returns each block for reuse. The file is closed on return.
fn write_rows(
    mut file: File,
    out: &mut Vec<u8>,
    first: Vec<f64>,
    blocks: mpsc::Receiver<Vec<f64>>,
    give_back: mpsc::Sender<Vec<f64>>,
    width: usize,
    integer: &[bool],
) -> std::io::Result<()> {
    // Only regular files are emptied (O_TRUNC leaves FIFOs and terminals alone). To their first
    // byte, not to zero: ext4 (auto_da_alloc) starts writing a file truncated to zero back to
    // disk when it is closed, which made rewriting an earlier run's CSV 2-4 ms slower; the
    // header overwrites that byte.
    let metadata = file.metadata()?;
    if metadata.is_file() && metadata.len() > 1 {
        file.set_len(1)?;
    }
    let mut block = first;
    loop {
        for row in block.chunks_exact(width) {
            // Rows are formatted straight into the output buffer, written when full.
            format_row(out, row[0], &row[1..], integer);
            if out.len() >= BUFFER {
                file.write_all(out)?;
                out.clear();
            }
        }
        block.clear();
        // The main thread may have finished; then the block is dropped.
        let _ = give_back.send(block);
        let next = match blocks.try_recv() {
            Ok(next) => Some(next),
            Err(TryRecvError::Disconnected) => None,
            // No rows waiting: the text so far goes to the file now, while the thread would
            // only wait. What is left to write when the run ends (and the run waits for) is
            // then the last block's text, not up to a buffer's 256 KB (0.1-0.3 ms of copying
            // into the page cache), and a reader of the file sees the rows as they come.
            Err(TryRecvError::Empty) => {
                file.write_all(out)?;
                out.clear();
                next_block(&blocks)
            }
        };
        match next {
            Some(next) => block = next,
            None => return file.write_all(out),
        }
    }
}

/// Appends one CSV line (with its line feed) of a row to `line`: the time and the values,
/// integer columns as integers.
fn format_row(line: &mut Vec<u8>, time: f64, values: &[f64], integer: &[bool]) {
    push_float(line, time);
    for (value, &integer) in values.iter().zip(integer) {
        line.push(b',');
        if integer && value.is_finite() {
            line.extend_from_slice(itoa::Buffer::new().format(*value as i64).as_bytes());
        } else {
            push_float(line, *value);
        }
    }
    line.push(b'\n');
}

/// Shortest representation that parses back to the same f64; exponent form only for very
/// large or small magnitudes (Rust's `{}` would print 1e300 with 300 digits).
pub fn format_float(x: f64) -> String {
    let mut out = Vec::with_capacity(24);
    push_float(&mut out, x);
    String::from_utf8(out).expect("ASCII")
}

/// Appends [`format_float`] of `x` to `out`: zero as "0", NaN and infinities as Rust writes
/// them, otherwise the shortest round-trip digits (Zmij, a Schubfach variant) in plain
/// notation for 1e-5 <= |x| < 1e16 ("0.07", "8", "123456.789") and in exponent form outside
/// ("1e-10", "6.02e23"): the text Rust's `{}` and `{:e}` give in those ranges.
#[inline(always)]
pub fn push_float(out: &mut Vec<u8>, x: f64) {
    if x == 0.0 {
        out.push(b'0');
        return;
    }
    if !x.is_finite() {
        let text: &[u8] = if x.is_nan() {
            b"NaN"
        } else if x > 0.0 {
            b"inf"
        } else {
            b"-inf"
        };
        out.extend_from_slice(text);
        return;
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(x).as_bytes();
    let start = out.len();
    // Zmij writes integers in plain notation as "8.0" and positive exponents as "e+23" (the
    // exponent is among the last five characters; only magnitudes from 1e16 up have one).
    if let Some(integer) = text.strip_suffix(b".0") {
        out.extend_from_slice(integer);
        return;
    }
    let tail = text.len().saturating_sub(5);
    let plus = if x.abs() >= 1e16 { text[tail..].iter().position(|&c| c == b'+') } else { None };
    match plus {
        Some(plus) => {
            out.extend_from_slice(&text[..tail + plus]);
            out.extend_from_slice(&text[tail + plus + 1..]);
        }
        None => out.extend_from_slice(text),
    }
    // A value with a short exact expansion may lie halfway between two shortest candidates.
    if let Some(exact) = exact_digits(x) {
        round_tie_up(&mut out[start..], exact);
    }
}

/// The significant digits of x's exact decimal expansion if they are at most 18 and x is
/// not an integer: with x = M 2^-n, M odd and n >= 1, the expansion is M 5^n 10^-n, whose
/// digits are those of M 5^n (ending in a 5). Most values have more and return None at once
/// (one multiplication: this runs for every value written).
#[inline]
fn exact_digits(x: f64) -> Option<u128> {
    const LIMIT: u128 = 1_000_000_000_000_000_000;
    let bits = x.to_bits();
    let (exponent, fraction) = (((bits >> 52) & 0x7ff) as i32, bits & ((1 << 52) - 1));
    let (mantissa, power) = if exponent == 0 { (fraction, -1074) } else { (fraction | 1 << 52, exponent - 1075) };
    let zeros = mantissa.trailing_zeros();
    let (odd, power) = (mantissa >> zeros, power + zeros as i32);
    // 5^n for n >= 26 exceeds the 18 digits by itself.
    let n = usize::try_from(-power).ok().filter(|n| (1..POWERS_OF_5.len()).contains(n))?;
    let digits = u128::from(odd) * u128::from(POWERS_OF_5[n]);
    (digits < LIMIT).then_some(digits)
}

/// 5^0 .. 5^25 (5^25 < 10^18 < 5^26).
const POWERS_OF_5: [u64; 26] = {
    let mut table = [1u64; 26];
    let mut i = 1;
    while i < table.len() {
        table[i] = table[i - 1] * 5;
        i += 1;
    }
    table
};

/// Zmij and Rust's `{}`/`{:e}` both write the shortest digits that read back as x, the
/// closest to x among them; when x lies exactly halfway between the two closest (its exact
/// digits `exact`, a 5 at the end, are one more than the shortest), Zmij takes the even last
/// digit and Rust rounds up. This makes `text` Rust's.
#[cold]
fn round_tie_up(text: &mut [u8], exact: u128) {
    let mantissa = text.iter().position(|&c| c == b'e').unwrap_or(text.len());
    let significant = text[..mantissa].iter().filter(|c| c.is_ascii_digit()).skip_while(|&&c| c == b'0').count();
    let exact_len = exact.checked_ilog10().map_or(0, |l| l as usize + 1);
    if exact_len == significant + 1 {
        // Rounded down, the last digit is even and one below the rounded-up one (no carry).
        let last = text[..mantissa].iter().rposition(|c| c.is_ascii_digit()).expect("digits");
        text[last] = b'0' + ((exact + 5) / 10 % 10) as u8;
    }
}

/// RFC 4180 quoting for names that contain a comma, quote or line break.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip_in_short_form() {
        for x in [0.1, 0.07, 1.0 / 3.0, -2.5e-7, 6.02e23, 123456.789, f64::MIN_POSITIVE] {
            let s = format_float(x);
            assert_eq!(s.parse::<f64>().unwrap(), x, "{s}");
            assert!(s.len() < 26, "{s}");
        }
        assert_eq!(format_float(0.07), "0.07");
        assert_eq!(format_float(8.0), "8");
        assert_eq!(format_float(1e-10), "1e-10");
        assert_eq!(format_float(f64::NAN), "NaN");
    }

    /// The text Rust's `{}` and `{:e}` give (the formatter before Zmij), as the reference.
    fn std_format(x: f64) -> String {
        let a = x.abs();
        if x == 0.0 {
            "0".to_string()
        } else if !x.is_finite() || (1e-5..1e16).contains(&a) {
            format!("{x}")
        } else {
            format!("{x:e}")
        }
    }

    #[test]
    fn same_text_as_std_formatting_and_round_trips() {
        // Boundaries of the plain range, integers, powers of ten, subnormals, extremes.
        let mut cases = vec![
            // Exact ties (Rust rounds them up, Zmij to even), of 17 and 16 digits (the sums
            // are exact).
            1576861871246171.0 + 0.25,
            4028503078.0 + 0.84765625,
            -4028503078.0 - 0.84765625,
            -1016754363297178.0 - 0.75,
            -76152603618914.0 - 0.625,
            0.1015625 * 3.0,
            1e-5,
            9.999999999999999e-6,
            1e16,
            9.999999999999998e15,
            1e15,
            123456789012345.0,
            0.1 + 0.2,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            1.0,
            10.0,
            1e22,
            1e23,
            2f64.powi(53),
            2f64.powi(53) + 2.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for e in -320..=308 {
            cases.push(10f64.powi(e));
            cases.push(1.5 * 10f64.powi(e));
        }
        // Random bit patterns and random values of everyday magnitudes (SplitMix64).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        for _ in 0..200_000 {
            cases.push(f64::from_bits(next()));
            let unit = (next() >> 11) as f64 / (1u64 << 53) as f64;
            cases.push((unit - 0.5) * 10f64.powi((next() % 40) as i32 - 20));
        }
        let mut ties = 0;
        for x in cases {
            let (s, reference) = (format_float(x), std_format(x));
            if x.is_finite() {
                assert_eq!(s.parse::<f64>().unwrap(), if x == 0.0 { 0.0 } else { x }, "{s}");
            }
            assert_eq!(s, reference, "{x:e}");
            ties += usize::from(x.is_finite() && exact_digits(x).is_some());
        }
        assert!(ties > 10, "the cases include ties ({ties})");
    }

    #[test]
    fn writes_many_blocks_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let n = 3 * BLOCK_ROWS + 17;
        // No expected length, the right one (its last rows in blocks of TAIL_ROWS), and wrong ones.
        for expected in [None, Some(n), Some(n / 2), Some(2 * n), Some(0)] {
            let mut w = CsvWriter::create(&path, &["t", "x", "i"], vec![false, true], expected).unwrap();
            for k in 0..n {
                w.row(k as f64 * 0.1, &[k as f64 / 3.0, k as f64]).unwrap();
            }
            assert_eq!(w.rows, n);
            w.finish().unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), n + 1, "{expected:?}");
            for (k, line) in lines[1..].iter().enumerate() {
                let cells: Vec<&str> = line.split(',').collect();
                assert_eq!(cells[0].parse::<f64>().unwrap(), k as f64 * 0.1);
                assert_eq!(cells[1].parse::<f64>().unwrap(), k as f64 / 3.0);
                assert_eq!(cells[2], k.to_string());
            }
        }
    }

    #[test]
    fn rows_after_the_last_are_refused_and_the_file_is_complete() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut w = CsvWriter::create(&path, &["t", "x"], vec![false], None).unwrap();
        for k in 0..BLOCK_ROWS + 3 {
            w.row(k as f64, &[0.5]).unwrap();
        }
        w.end_rows();
        let e = w.row(1e3, &[0.5]).unwrap_err();
        assert!(e.to_string().contains("out.csv"), "{e}");
        w.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), BLOCK_ROWS + 4);
        assert!(text.ends_with(&format!("{},0.5\n", BLOCK_ROWS + 2)), "{}", &text[text.len() - 20..]);
    }

    #[test]
    fn rows_that_come_slowly_are_all_written() {
        // Pauses longer than the writer's looks for rows (it then sleeps on the channel) and
        // shorter ones, between blocks and before the last rows.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut w = CsvWriter::create(&path, &["t", "x"], vec![false], None).unwrap();
        let pause = |k: usize| std::time::Duration::from_micros([0, 50, 300, 3000][k % 4]);
        for k in 0..6 * BLOCK_ROWS + 5 {
            w.row(k as f64, &[0.5]).unwrap();
            if k % (BLOCK_ROWS / 2) == 0 {
                std::thread::sleep(pause(k / (BLOCK_ROWS / 2)));
            }
        }
        std::thread::sleep(pause(3));
        w.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 6 * BLOCK_ROWS + 6);
        assert!(text.ends_with(&format!("\n{},0.5\n", 6 * BLOCK_ROWS + 4)));
    }

    #[test]
    fn rows_reach_the_file_while_the_run_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut w = CsvWriter::create(&path, &["t", "x"], vec![false], None).unwrap();
        // The first row, then a block: each is written once the writer has nothing else to do.
        let mut expected = String::from("t,x\n");
        for k in 0..=BLOCK_ROWS {
            w.row(k as f64, &[0.5]).unwrap();
            expected.push_str(&format!("{k},0.5\n"));
            if k == 0 || k == BLOCK_ROWS {
                let waited = std::time::Instant::now();
                while std::fs::read_to_string(&path).unwrap() != expected {
                    assert!(waited.elapsed().as_secs() < 10, "rows up to {k} not in the file before the end");
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        }
        w.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    }

    #[test]
    fn a_run_without_rows_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        // A file the writer created is removed; an existing one is not touched.
        let w = CsvWriter::create(&path, &["t", "x"], vec![false], Some(100)).unwrap();
        assert!(path.exists(), "opened (and created) at once");
        w.finish().unwrap();
        assert!(!path.exists());
        std::fs::write(&path, "earlier rows\n").unwrap();
        drop(CsvWriter::create(&path, &["t", "x"], vec![false], None).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "earlier rows\n");
        // One row is a run: the file then holds the header and that row.
        let mut w = CsvWriter::create(&path, &["t", "x"], vec![false], Some(1)).unwrap();
        w.row(0.0, &[2.0]).unwrap();
        w.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "t,x\n0,2\n");
    }

    #[test]
    fn the_writer_prepares_blocks_until_rows_arrive() {
        let preparation = || Preparation { blocks: 3, block_len: 40, out_bytes: 500 };
        let header = || {
            let mut out = Vec::with_capacity(1000);
            out.extend_from_slice(b"t,x\n");
            out
        };
        // No rows yet: three empty blocks of 40 values for the stepping thread, then it waits.
        let (to_writer, blocks) = mpsc::sync_channel::<Vec<f64>>(4);
        let (give_back, written) = mpsc::channel();
        let writer = std::thread::spawn(move || {
            let mut out = header();
            let first = preparation().run(&mut out, &blocks, &give_back);
            (first, out)
        });
        let prepared: Vec<Vec<f64>> = (0..3).map(|_| written.recv().unwrap()).collect();
        assert!(prepared.iter().all(|b| b.is_empty() && b.capacity() >= 40));
        to_writer.send(vec![0.5, 1.5]).unwrap();
        let (first, out) = writer.join().unwrap();
        assert_eq!(first, Some(vec![0.5, 1.5]));
        assert_eq!(out, b"t,x\n", "the buffer keeps its header");
        assert!(written.try_recv().is_err(), "no more than three");
        // Rows waiting: no preparation, the rows at once; a run that ended without rows: None.
        for queued in [Some(vec![2.5]), None] {
            let (to_writer, blocks) = mpsc::sync_channel(4);
            let (give_back, written) = mpsc::channel();
            if let Some(rows) = &queued {
                to_writer.send(rows.clone()).unwrap();
            }
            drop(to_writer);
            assert_eq!(preparation().run(&mut header(), &blocks, &give_back), queued);
            assert!(written.try_recv().is_err());
        }
    }

    #[test]
    fn a_failing_write_is_reported_with_the_file() {
        let path = Path::new("/dev/full");
        let mut w = CsvWriter::create(path, &["t", "x"], vec![false], None).unwrap();
        let mut failed = None;
        for k in 0..100_000 {
            if let Err(e) = w.row(k as f64, &[1.0 / 3.0]) {
                failed = Some(e);
                break;
            }
        }
        let e = failed.or_else(|| w.finish().err()).expect("writing to /dev/full fails");
        assert!(e.to_string().contains("/dev/full"), "{e}");
    }

    #[test]
    fn an_existing_longer_file_is_replaced_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        // Emptied to its first byte, not to zero (see `create`): every length around that one.
        for old in ["old contents, longer than the new ones\n".repeat(1000), "o".into(), "ol".into(), String::new()] {
            std::fs::write(&path, old).unwrap();
            let mut w = CsvWriter::create(&path, &["t", "x"], vec![false], None).unwrap();
            w.row(0.5, &[1.25]).unwrap();
            w.finish().unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "t,x\n0.5,1.25\n");
        }
    }

    #[test]
    fn writes_header_and_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut w = CsvWriter::create(&path, &["time", "x[1,2]", "n"], vec![false, true], Some(3)).unwrap();
        w.row(0.5, &[1.25, 3.0]).unwrap();
        w.row(1e-7, &[f64::NAN, -7.0]).unwrap();
        w.row(2.0, &[-1e300, f64::NAN]).unwrap();
        w.finish().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "time,\"x[1,2]\",n\n0.5,1.25,3\n1e-7,NaN,-7\n2,-1e300,NaN\n"
        );
    }
}
