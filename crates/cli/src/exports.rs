//! The export lists of the libraries of other platforms, rewritten after the link where the
//! linker does not keep to the list rustc gives it.
//!
//! **macOS.**
//! rustc hands the linker the list of symbols a cdylib exports (`-exported_symbols_list`), and
//! Apple's linker turns every other global symbol into a private one. zig's Mach-O linker
//! ignores that list, so a library it links exports every global symbol of its objects: fmi-sys'
//! `callback_log`, gemm's assembly microkernels, zig's compiler-rt helpers, `___dso_handle` and
//! `__mh_dylib_header`. [`limit_mach_o_exports`] rewrites the linked library as the list would
//! have had it written: the export trie (what dyld and `dlsym` search) holds the kept symbols
//! only, every other external definition of the symbol table becomes a private external
//! (`N_PEXT`, moved from the external to the local symbols), and the linker's ad-hoc code
//! signature gets its page hashes recomputed, since the linkedit pages it covers changed.
//! Nothing moves: the rewritten trie is smaller than the original and takes its place, padded
//! with zeros, and the symbol table keeps its size.
//!
//! **Windows.** rustc writes the DLL's export definitions itself and lists every `#[no_mangle]`
//! function of every crate in them, fmi-sys' `callback_log` included, and GNU ld's
//! `--exclude-symbols` applies only to symbols it exports of its own accord.
//! [`limit_pe_exports`] takes such names out of the DLL's export directory (name, ordinal and
//! address), which keeps its sorted order, and renews the image checksum.

use sha2::{Digest, Sha256};

// Mach-O constants (mach-o/loader.h, mach-o/nlist.h, the code signing blobs of the kernel).
const MH_MAGIC_64: u32 = 0xfeed_facf;
const MH_WEAK_DEFINES: u32 = 0x8000;
const LC_SYMTAB: u32 = 0x2;
const LC_DYSYMTAB: u32 = 0xb;
const LC_CODE_SIGNATURE: u32 = 0x1d;
const LC_DYLD_INFO: u32 = 0x22;
const LC_DYLD_INFO_ONLY: u32 = 0x8000_0022;
const LC_DYLD_EXPORTS_TRIE: u32 = 0x8000_0033;
const N_STAB: u8 = 0xe0;
const N_PEXT: u8 = 0x10;
const N_TYPE: u8 = 0x0e;
const N_EXT: u8 = 0x01;
const N_UNDF: u8 = 0x0;
const NLIST_64_SIZE: usize = 16;
const INDIRECT_SYMBOL_LOCAL: u32 = 0x8000_0000;
const INDIRECT_SYMBOL_ABS: u32 = 0x4000_0000;
const EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION: u64 = 0x04;
const CSMAGIC_EMBEDDED_SIGNATURE: u32 = 0xfade_0cc0;
const CSMAGIC_CODEDIRECTORY: u32 = 0xfade_0c02;
const CSMAGIC_BLOBWRAPPER: u32 = 0xfade_0b01;
const CS_HASHTYPE_SHA256: u8 = 2;

/// What [`limit_mach_o_exports`] did.
#[derive(Debug, PartialEq, Eq)]
pub struct Limited {
    /// Symbols left in the export trie.
    pub kept: usize,
    /// Symbols taken out of the export trie.
    pub removed: usize,
    /// External definitions of the symbol table made private.
    pub demoted: usize,
    /// Pages of the code signature whose hashes were recomputed (0: the library is not signed).
    pub pages_signed: usize,
}

fn le32(bytes: &[u8], at: usize) -> Result<u32, String> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("four bytes")))
        .ok_or_else(|| format!("truncated Mach-O file (reading at {at})"))
}

fn set_le32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

fn be32(bytes: &[u8], at: usize) -> Result<u32, String> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_be_bytes(b.try_into().expect("four bytes")))
        .ok_or_else(|| format!("truncated code signature (reading at {at})"))
}

fn range(bytes: &[u8], offset: u32, size: u64, what: &str) -> Result<std::ops::Range<usize>, String> {
    let start = offset as usize;
    let end = start.checked_add(usize::try_from(size).map_err(|_| format!("{what}: size {size}"))?);
    match end {
        Some(end) if end <= bytes.len() => Ok(start..end),
        _ => Err(format!("{what} ({size} bytes at {offset}) lies outside the file")),
    }
}

fn read_uleb(data: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *data.get(*at).ok_or("truncated export trie")?;
        *at += 1;
        if shift >= 64 {
            return Err("export trie: integer too long".into());
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        shift += 7;
    }
}

fn write_uleb(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn uleb_len(value: u64) -> usize {
    let mut out = Vec::with_capacity(10);
    write_uleb(&mut out, value);
    out.len()
}

/// An export: its Mach-O name (with the leading underscore of C names) and its terminal data
/// (flags and address, or a re-export, or a stub and resolver), kept as the linker wrote it.
type Export = (Vec<u8>, Vec<u8>);

/// Every export of a trie, in the trie's order.
fn parse_trie(trie: &[u8]) -> Result<Vec<Export>, String> {
    let mut exports = Vec::new();
    let mut stack = vec![(0usize, Vec::new())];
    // A well-formed trie is a tree: no more nodes than bytes.
    let mut visits = 0usize;
    while let Some((node, prefix)) = stack.pop() {
        visits += 1;
        if visits > trie.len() + 1 {
            return Err("export trie: a node is reached twice".into());
        }
        let mut at = node;
        let terminal = usize::try_from(read_uleb(trie, &mut at)?).map_err(|_| "export trie: size")?;
        if terminal > 0 {
            let data = trie.get(at..at + terminal).ok_or("export trie: truncated terminal")?;
            exports.push((prefix.clone(), data.to_vec()));
            at += terminal;
        }
        let children = *trie.get(at).ok_or("truncated export trie")?;
        at += 1;
        let mut edges = Vec::new();
        for _ in 0..children {
            let end = trie[at..].iter().position(|&b| b == 0).ok_or("export trie: unterminated edge")?;
            let mut name = prefix.clone();
            name.extend_from_slice(&trie[at..at + end]);
            at += end + 1;
            let child = usize::try_from(read_uleb(trie, &mut at)?).map_err(|_| "export trie: offset")?;
            if child >= trie.len() {
                return Err("export trie: an edge leads outside the trie".into());
            }
            edges.push((child, name));
        }
        // Depth first, edges in their order.
        stack.extend(edges.into_iter().rev());
    }
    Ok(exports)
}

/// A node of a trie being built.
#[derive(Default)]
struct Node {
    terminal: Vec<u8>,
    edges: Vec<(Vec<u8>, usize)>,
}

/// The export trie of `exports` (names distinct and non-empty), in the layout Apple's linker
/// writes: nodes depth first, each edge's child offset in the fewest bytes.
fn build_trie(exports: &[Export]) -> Result<Vec<u8>, String> {
    let mut nodes = vec![Node::default()];
    for (name, terminal) in exports {
        let mut node = 0;
        let mut rest: &[u8] = name;
        loop {
            if rest.is_empty() {
                if !nodes[node].terminal.is_empty() {
                    return Err(format!("export trie: {} twice", String::from_utf8_lossy(name)));
                }
                nodes[node].terminal = terminal.clone();
                break;
            }
            let edge = nodes[node].edges.iter().position(|(label, _)| label[0] == rest[0]);
            let Some(edge) = edge else {
                nodes.push(Node { terminal: terminal.clone(), edges: Vec::new() });
                let leaf = nodes.len() - 1;
                nodes[node].edges.push((rest.to_vec(), leaf));
                break;
            };
            let (label, child) = nodes[node].edges[edge].clone();
            let common = label.iter().zip(rest).take_while(|(a, b)| a == b).count();
            if common < label.len() {
                // Split the edge: label[..common] to a new node, which leads on to the child.
                nodes.push(Node { terminal: Vec::new(), edges: vec![(label[common..].to_vec(), child)] });
                let middle = nodes.len() - 1;
                nodes[node].edges[edge] = (label[..common].to_vec(), middle);
                node = middle;
            } else {
                node = child;
            }
            rest = &rest[common..];
        }
    }
    for node in &mut nodes {
        if node.edges.len() > 255 {
            return Err("export trie: a node with more than 255 edges".into());
        }
        node.edges.sort();
    }
    // Depth-first order, then offsets until the sizes of the offsets themselves settle.
    let mut order = Vec::with_capacity(nodes.len());
    let mut stack = vec![0usize];
    while let Some(n) = stack.pop() {
        order.push(n);
        stack.extend(nodes[n].edges.iter().rev().map(|(_, c)| *c));
    }
    let mut offsets = vec![0usize; nodes.len()];
    loop {
        let mut changed = false;
        let mut at = 0;
        for &n in &order {
            if offsets[n] != at {
                offsets[n] = at;
                changed = true;
            }
            let node = &nodes[n];
            at += uleb_len(node.terminal.len() as u64) + node.terminal.len() + 1;
            for (label, child) in &node.edges {
                at += label.len() + 1 + uleb_len(offsets[*child] as u64);
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = Vec::new();
    for &n in &order {
        let node = &nodes[n];
        debug_assert_eq!(out.len(), offsets[n]);
        write_uleb(&mut out, node.terminal.len() as u64);
        out.extend_from_slice(&node.terminal);
        out.push(node.edges.len() as u8);
        for (label, child) in &node.edges {
            out.extend_from_slice(label);
            out.push(0);
            write_uleb(&mut out, offsets[*child] as u64);
        }
    }
    Ok(out)
}

/// Where the load commands put the parts that change.
struct Layout {
    /// File offset of the (offset, size) pair of the export trie in its load command.
    trie: usize,
    /// File offset of LC_SYMTAB and LC_DYSYMTAB.
    symtab: usize,
    dysymtab: usize,
    /// File offset of LC_CODE_SIGNATURE, if the library is signed.
    signature: Option<usize>,
}

fn layout(bytes: &[u8]) -> Result<Layout, String> {
    if le32(bytes, 0)? != MH_MAGIC_64 {
        return Err("not a little-endian 64-bit Mach-O file (a universal file is split first)".into());
    }
    let count = le32(bytes, 16)?;
    let mut at = 32;
    let (mut trie, mut symtab, mut dysymtab, mut signature) = (None, None, None, None);
    for _ in 0..count {
        let (cmd, size) = (le32(bytes, at)?, le32(bytes, at + 4)? as usize);
        match cmd {
            LC_DYLD_INFO | LC_DYLD_INFO_ONLY => trie = Some(at + 40),
            LC_DYLD_EXPORTS_TRIE => trie = Some(at + 8),
            LC_SYMTAB => symtab = Some(at),
            LC_DYSYMTAB => dysymtab = Some(at),
            LC_CODE_SIGNATURE => signature = Some(at),
            _ => {}
        }
        if size < 8 {
            return Err("a load command of less than 8 bytes".into());
        }
        at += size;
    }
    Ok(Layout {
        trie: trie.ok_or("no export trie (LC_DYLD_INFO or LC_DYLD_EXPORTS_TRIE)")?,
        symtab: symtab.ok_or("no symbol table (LC_SYMTAB)")?,
        dysymtab: dysymtab.ok_or("no LC_DYSYMTAB")?,
        signature,
    })
}

/// Makes a thin 64-bit Mach-O library (`bytes`, rewritten in place) export only the symbols
/// whose Mach-O names `keep` accepts (C names carry a leading underscore there): see the module
/// documentation. Fails, leaving `bytes` unusable, on a file this does not know how to rewrite
/// (a real signature, old-style relocations or tables that refer to symbols by index).
pub fn limit_mach_o_exports(bytes: &mut [u8], keep: &dyn Fn(&[u8]) -> bool) -> Result<Limited, String> {
    let layout = layout(bytes)?;

    // The export trie.
    let (trie_offset, trie_size) = (le32(bytes, layout.trie)?, le32(bytes, layout.trie + 4)?);
    let trie_range = range(bytes, trie_offset, trie_size.into(), "the export trie")?;
    let exports = parse_trie(&bytes[trie_range.clone()])?;
    let total = exports.len();
    let kept: Vec<Export> = exports.into_iter().filter(|(name, _)| keep(name)).collect();
    if kept.is_empty() {
        return Err("none of its exports is to be kept".into());
    }
    let trie = build_trie(&kept)?;
    if trie.len() > trie_range.len() {
        return Err(format!("the export trie of the kept symbols ({} bytes) outgrows the original", trie.len()));
    }
    let weak = kept.iter().any(|(_, terminal)| {
        let mut at = 0;
        read_uleb(terminal, &mut at).is_ok_and(|flags| flags & EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION != 0)
    });
    bytes[trie_range.clone()].fill(0);
    bytes[trie_range.start..trie_range.start + trie.len()].copy_from_slice(&trie);
    // The size stays: the zeros after the trie are padding no reader reaches.

    // The symbol table: external definitions not kept become private externals, moved from
    // the start of the external definitions to the end of the local symbols (a stable
    // partition, so the kept ones stay sorted); the indirect symbol table follows the move.
    let (symoff, nsyms) = (le32(bytes, layout.symtab + 8)?, le32(bytes, layout.symtab + 12)?);
    let (stroff, strsize) = (le32(bytes, layout.symtab + 16)?, le32(bytes, layout.symtab + 20)?);
    let symbols = range(bytes, symoff, u64::from(nsyms) * NLIST_64_SIZE as u64, "the symbol table")?;
    let strings = range(bytes, stroff, strsize.into(), "the string table")?;
    let d = layout.dysymtab;
    let (ilocal, nlocal, iext, next) =
        (le32(bytes, d + 8)?, le32(bytes, d + 12)?, le32(bytes, d + 16)?, le32(bytes, d + 20)?);
    // toc, module table, external reference symbols, external relocations: all refer to
    // symbols by index (and a modern library has none).
    for (field, what) in
        [(36, "table of contents"), (44, "module table"), (52, "external references"), (68, "external relocations")]
    {
        if le32(bytes, d + field)? != 0 {
            return Err(format!("it has {what}, which refer to symbols by index"));
        }
    }
    if ilocal.checked_add(nlocal) != Some(iext) || iext.checked_add(next).is_none_or(|end| end > nsyms) {
        return Err("its local and external symbols are not adjacent ranges of the symbol table".into());
    }
    let entry = |i: u32| symbols.start + i as usize * NLIST_64_SIZE;
    let name_of = |bytes: &[u8], i: u32| -> Result<Vec<u8>, String> {
        let strx = le32(bytes, entry(i))? as usize;
        let table = &bytes[strings.clone()];
        let tail = table.get(strx..).ok_or("a symbol name outside the string table")?;
        Ok(tail[..tail.iter().position(|&b| b == 0).unwrap_or(tail.len())].to_vec())
    };
    let mut demoted = Vec::new();
    let mut stay = Vec::new();
    for i in iext..iext + next {
        let n_type = bytes[entry(i) + 4];
        if n_type & N_STAB != 0 || n_type & N_EXT == 0 || n_type & N_TYPE == N_UNDF {
            return Err(format!("symbol {i} of the external definitions is not one"));
        }
        if keep(&name_of(bytes, i)?) {
            stay.push(i)
        } else {
            demoted.push(i)
        }
    }
    let new_order: Vec<u32> = demoted.iter().chain(&stay).copied().collect();
    let old_entries: Vec<[u8; NLIST_64_SIZE]> =
        new_order.iter().map(|&i| bytes[entry(i)..entry(i) + NLIST_64_SIZE].try_into().expect("an nlist_64")).collect();
    let mut moved_to = std::collections::HashMap::new();
    for (k, (old, mut nlist)) in new_order.iter().zip(old_entries).enumerate() {
        let new = iext + k as u32;
        if k < demoted.len() {
            nlist[4] = (nlist[4] & !N_EXT) | N_PEXT;
        }
        bytes[entry(new)..entry(new) + NLIST_64_SIZE].copy_from_slice(&nlist);
        moved_to.insert(*old, new);
    }
    let count = demoted.len() as u32;
    set_le32(bytes, d + 12, nlocal + count);
    set_le32(bytes, d + 16, iext + count);
    set_le32(bytes, d + 20, next - count);
    let (indirect_offset, nindirect) = (le32(bytes, d + 56)?, le32(bytes, d + 60)?);
    let indirect = range(bytes, indirect_offset, u64::from(nindirect) * 4, "the indirect symbol table")?;
    for at in indirect.step_by(4) {
        let index = le32(bytes, at)?;
        if index & (INDIRECT_SYMBOL_LOCAL | INDIRECT_SYMBOL_ABS) == 0 {
            if let Some(&new) = moved_to.get(&index) {
                set_le32(bytes, at, new);
            }
        }
    }
    // The library no longer exports weak definitions unless a kept export is one.
    if !weak {
        let flags = le32(bytes, 24)?;
        set_le32(bytes, 24, flags & !MH_WEAK_DEFINES);
    }

    let pages_signed = match layout.signature {
        Some(command) => resign(bytes, le32(bytes, command + 8)?, le32(bytes, command + 12)?)?,
        None => 0,
    };
    Ok(Limited { kept: kept.len(), removed: total - kept.len(), demoted: demoted.len(), pages_signed })
}

/// Recomputes the page hashes of every code directory of an ad-hoc signature (the signature
/// itself, at the end of the file, covers the bytes before it).
fn resign(bytes: &mut [u8], offset: u32, size: u32) -> Result<usize, String> {
    let blob = range(bytes, offset, size.into(), "the code signature")?.start;
    if be32(bytes, blob)? != CSMAGIC_EMBEDDED_SIGNATURE {
        return Err("its code signature is not an embedded signature".into());
    }
    let count = be32(bytes, blob + 8)?;
    let mut pages = 0;
    for i in 0..count as usize {
        let at = blob + be32(bytes, blob + 12 + 8 * i + 4)? as usize;
        match be32(bytes, at)? {
            CSMAGIC_CODEDIRECTORY => {}
            // An empty CMS wrapper is what an ad-hoc signature carries, if anything.
            CSMAGIC_BLOBWRAPPER if be32(bytes, at + 4)? <= 8 => continue,
            CSMAGIC_BLOBWRAPPER => return Err("it carries a real signature, which only its signer can renew".into()),
            _ => continue,
        }
        let hash_offset = at + be32(bytes, at + 16)? as usize;
        let code_slots = be32(bytes, at + 28)? as usize;
        let code_limit = be32(bytes, at + 32)? as usize;
        let (hash_size, hash_type, page_log2) = (bytes[at + 36] as usize, bytes[at + 37], bytes[at + 39]);
        if hash_type != CS_HASHTYPE_SHA256 || hash_size != 32 {
            return Err(format!("its code directory hashes with type {hash_type}, not SHA-256"));
        }
        if code_limit > offset as usize || page_log2 == 0 || page_log2 > 20 {
            return Err("its code directory covers its own signature".into());
        }
        let page = 1usize << page_log2;
        if code_slots != code_limit.div_ceil(page) || hash_offset + code_slots * 32 > bytes.len() {
            return Err("its code directory's slots do not match its code limit".into());
        }
        for slot in 0..code_slots {
            let hash = Sha256::digest(&bytes[slot * page..((slot + 1) * page).min(code_limit)]);
            bytes[hash_offset + slot * 32..hash_offset + (slot + 1) * 32].copy_from_slice(&hash);
        }
        pages += code_slots;
    }
    Ok(pages)
}

fn le16(bytes: &[u8], at: usize) -> Result<u16, String> {
    bytes
        .get(at..at + 2)
        .map(|b| u16::from_le_bytes(b.try_into().expect("two bytes")))
        .ok_or_else(|| format!("truncated PE file (reading at {at})"))
}

/// The PE image checksum (the one `CheckSumMappedFile` computes): the file as 16-bit words,
/// its checksum field taken as zero, summed with the carries folded in, plus the file's length.
fn pe_checksum(bytes: &[u8], field: usize) -> u32 {
    let mut sum: u64 = 0;
    for (i, pair) in bytes.chunks(2).enumerate() {
        if i * 2 == field || i * 2 == field + 2 {
            continue;
        }
        sum += u64::from(pair[0]) | u64::from(*pair.get(1).unwrap_or(&0)) << 8;
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum = (sum & 0xffff) + (sum >> 16);
    (sum as u32).wrapping_add(bytes.len() as u32)
}

/// Makes a PE32+ DLL (`bytes`, rewritten in place) export by name only the symbols whose names
/// `keep` accepts: see the module documentation. Returns how many names it kept and removed.
pub fn limit_pe_exports(bytes: &mut [u8], keep: &dyn Fn(&[u8]) -> bool) -> Result<(usize, usize), String> {
    let pe = le32(bytes, 0x3c)? as usize;
    if bytes.get(pe..pe + 4) != Some(b"PE\0\0") {
        return Err("not a PE file".into());
    }
    let sections = le16(bytes, pe + 6)? as usize;
    let optional = pe + 24;
    if le16(bytes, optional)? != 0x20b {
        return Err("not a PE32+ (64-bit) image".into());
    }
    let table = optional + le16(bytes, pe + 20)? as usize;
    let field = optional + 64;
    let checksum = le32(bytes, field)?;
    if checksum != 0 && checksum != pe_checksum(bytes, field) {
        return Err("its image checksum is not the one this would renew".into());
    }
    // File offset of an RVA, through the section that holds it.
    let offset = |bytes: &[u8], rva: u32| -> Result<usize, String> {
        for s in 0..sections {
            let header = table + 40 * s;
            let (size, address) = (le32(bytes, header + 8)?, le32(bytes, header + 12)?);
            let (raw_size, raw) = (le32(bytes, header + 16)?, le32(bytes, header + 20)?);
            if rva >= address && rva - address < size.max(raw_size) {
                return Ok((raw + (rva - address)) as usize);
            }
        }
        Err(format!("RVA {rva:#x} lies in no section"))
    };
    if le32(bytes, optional + 108)? < 1 {
        return Err("no export directory".into());
    }
    let directory = offset(bytes, le32(bytes, optional + 112)?)?;
    let functions = le32(bytes, directory + 20)? as usize;
    let count = le32(bytes, directory + 24)? as usize;
    let addresses = offset(bytes, le32(bytes, directory + 28)?)?;
    let names = offset(bytes, le32(bytes, directory + 32)?)?;
    let ordinals = offset(bytes, le32(bytes, directory + 36)?)?;
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    for i in 0..count {
        let name_rva = le32(bytes, names + 4 * i)?;
        let ordinal = le16(bytes, ordinals + 2 * i)?;
        let at = offset(bytes, name_rva)?;
        let length = bytes[at..].iter().position(|&b| b == 0).ok_or("an unterminated export name")?;
        if (ordinal as usize) >= functions {
            return Err(format!("export {i} has ordinal index {ordinal} of {functions}"));
        }
        if keep(&bytes[at..at + length]) {
            kept.push((name_rva, ordinal));
        } else {
            removed.push((at, length, ordinal));
        }
    }
    if kept.is_empty() {
        return Err("none of its exports is to be kept".into());
    }
    for &(at, length, ordinal) in &removed {
        if kept.iter().any(|&(_, o)| o == ordinal) {
            return Err("a removed name shares its address slot with a kept one".into());
        }
        bytes[at..at + length].fill(0);
        set_le32(bytes, addresses + 4 * ordinal as usize, 0);
    }
    // Empty address slots at either end leave the table (at the start by raising the ordinal
    // base, which keeps every remaining export's ordinal).
    let used = |bytes: &[u8], slot: usize| le32(bytes, addresses + 4 * slot).map(|rva| rva != 0);
    let mut first = 0;
    while first < functions && !used(bytes, first)? {
        first += 1;
    }
    let mut end = functions;
    while end > first && !used(bytes, end - 1)? {
        end -= 1;
    }
    set_le32(bytes, directory + 16, le32(bytes, directory + 16)? + first as u32);
    set_le32(bytes, directory + 20, (end - first) as u32);
    set_le32(bytes, directory + 28, le32(bytes, directory + 28)? + 4 * first as u32);
    for (i, &(name_rva, ordinal)) in kept.iter().enumerate() {
        set_le32(bytes, names + 4 * i, name_rva);
        let index = ordinal - first as u16;
        bytes[ordinals + 2 * i..ordinals + 2 * i + 2].copy_from_slice(&index.to_le_bytes());
    }
    for i in kept.len()..count {
        set_le32(bytes, names + 4 * i, 0);
        bytes[ordinals + 2 * i..ordinals + 2 * i + 2].fill(0);
    }
    set_le32(bytes, directory + 24, kept.len() as u32);
    if checksum != 0 {
        let sum = pe_checksum(bytes, field);
        set_le32(bytes, field, sum);
    }
    Ok((kept.len(), removed.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, address: u64, flags: u64) -> Export {
        let mut terminal = Vec::new();
        write_uleb(&mut terminal, flags);
        write_uleb(&mut terminal, address);
        (name.as_bytes().to_vec(), terminal)
    }

    #[test]
    fn a_built_trie_reads_back_with_every_export_and_its_data() {
        // Shared prefixes, a name that is a prefix of another, and addresses whose offsets
        // need more than one byte.
        let mut exports: Vec<Export> =
            (0..300).map(|i| entry(&format!("_fmi{}Get{}", 2 + i % 2, i), 0x1000 + 977 * i as u64, 0)).collect();
        exports.push(entry("_fmi3Get", 0x42, 0));
        exports.push(entry("_fmi3GetFloat64", 0x4242, 4));
        exports.push(entry("___dso_handle", 0x77_0000, 0));
        let trie = build_trie(&exports).unwrap();
        let mut read = parse_trie(&trie).unwrap();
        read.sort();
        let mut expected = exports.clone();
        expected.sort();
        assert_eq!(read, expected);
        // Apple's layout: the root first, with no terminal and one edge per first byte.
        assert_eq!(&trie[..2], &[0, 1]);
        // And another reader, object's, finds the same names and addresses.
        use object::{LittleEndian as LE, U32};
        let field = |v: u32| U32::new(LE, v);
        let command = object::macho::DyldInfoCommand {
            cmd: U32::new(LE, object::macho::LC_DYLD_INFO_ONLY),
            cmdsize: field(48),
            rebase_off: field(0),
            rebase_size: field(0),
            bind_off: field(0),
            bind_size: field(0),
            weak_bind_off: field(0),
            weak_bind_size: field(0),
            lazy_bind_off: field(0),
            lazy_bind_size: field(0),
            export_off: field(0),
            export_size: field(trie.len() as u32),
        };
        let mut theirs: Vec<(Vec<u8>, u64)> = command
            .exports_trie(LE, &trie[..])
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                match e.data() {
                    object::read::macho::ExportData::Regular { address } => (e.name().to_vec(), *address),
                    other => panic!("{other:?}"),
                }
            })
            .collect();
        theirs.sort();
        let mut ours: Vec<(Vec<u8>, u64)> = expected
            .iter()
            .map(|(name, terminal)| {
                let mut at = 0;
                read_uleb(terminal, &mut at).unwrap();
                (name.clone(), read_uleb(terminal, &mut at).unwrap())
            })
            .collect();
        ours.sort();
        assert_eq!(theirs, ours);
    }

    #[test]
    fn a_trie_that_loops_is_refused() {
        // Root with one edge "a" leading back to the root.
        assert!(parse_trie(&[0, 1, b'a', 0, 0]).is_err());
    }
}
