//! A GGUF reader that trusts nothing in the file: the header, the metadata and the tensor table are checked
//! before any tensor library sees them, so a damaged or hostile model file is an error that names the file, the
//! key or tensor, the value found and what it should be — never a panic, an abort or a multi-gigabyte
//! allocation.
//!
//! Every count and length is checked against the bytes left in the file before anything is allocated or
//! looped over, so memory is bounded by the file's own size (and, for metadata arrays whose elements the
//! next reader expands into 32-byte values, by [`MAX_ARRAY_ELEMENTS`]). Every offset and size is computed with
//! checked arithmetic, and every tensor's data must lie inside the file.
//!
//! ```no_run
//! let g = registro_gguf::read_file("model.gguf".as_ref())?; // structure: any GGUF (models, tokenizers)
//! let dims = registro_gguf::check_decoder(&g)?;             // a decoder Registro can run
//! println!("{} layers, hidden {}", dims.n_layer, dims.hidden);
//! # Ok::<(), registro_gguf::Error>(())
//! ```
//!
//! [`parse`] takes bytes (the fuzzer's entry point), [`parse_reader`] any `Read` (only the header is read, not
//! the tensor data).
#![forbid(unsafe_code)]
mod decoder;
mod types;
pub mod write;

pub use decoder::{check_decoder, DecoderDims, SUPPORTED_ARCHITECTURES};
pub use types::{GgmlType, LOADABLE};

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// More tensors than any published model has (the largest have a few thousand); the table is read into memory.
pub const MAX_TENSORS: u64 = 1 << 16;
/// Metadata entries; real files have tens.
pub const MAX_METADATA_KEYS: u64 = 1 << 16;
/// Elements over all metadata arrays together. A one-byte element on disk becomes a 32-byte value in candle's
/// reader, so this caps that expansion at 256 MiB; real vocabularies (tokens, scores, types, merges) total
/// under 1.5 M.
pub const MAX_ARRAY_ELEMENTS: u64 = 1 << 23;
/// The GGUF specification's limit on key length.
pub const MAX_KEY_LEN: u64 = 65_535;
/// ggml's `GGML_MAX_NAME` (64, including the terminating NUL); llama.cpp refuses longer names too.
pub const MAX_TENSOR_NAME_LEN: u64 = 63;
/// ggml's `GGML_MAX_DIMS`.
pub const MAX_DIMS: u32 = 4;
/// Real files use 32; anything above 1 MiB only wastes the file and cannot come from a real writer.
pub const MAX_ALIGNMENT: u64 = 1 << 20;
/// What GGUF assumes when `general.alignment` is absent.
pub const DEFAULT_ALIGNMENT: u64 = 32;
/// Arrays of arrays are legal but unused by real files; a bound keeps hostile nesting off the stack.
const MAX_NESTING: u32 = 8;
/// Scalar strings up to this length are kept (architecture, name, chat template); longer ones (an embedded
/// tokenizer.json) are checked and skipped, so validation holds no second copy of them.
const KEEP_STRING: u64 = 1 << 20;

/// What is wrong with a file, ready to show a user: `"{file}: {message}"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub path: Option<PathBuf>,
    pub message: String,
}

impl Error {
    fn new(message: impl Into<String>) -> Self {
        Self { path: None, message: message.into() }
    }

    fn at(mut self, path: Option<&Path>) -> Self {
        if self.path.is_none() {
            self.path = path.map(Path::to_path_buf);
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// GGUF metadata value types, with the specification's numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    F32,
    Bool,
    String,
    Array,
    U64,
    I64,
    F64,
}

impl ValueType {
    fn from_id(id: u32) -> Option<Self> {
        Some(match id {
            0 => Self::U8,
            1 => Self::I8,
            2 => Self::U16,
            3 => Self::I16,
            4 => Self::U32,
            5 => Self::I32,
            6 => Self::F32,
            7 => Self::Bool,
            8 => Self::String,
            9 => Self::Array,
            10 => Self::U64,
            11 => Self::I64,
            12 => Self::F64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::U8 => "u8",
            Self::I8 => "i8",
            Self::U16 => "u16",
            Self::I16 => "i16",
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::F32 => "f32",
            Self::Bool => "bool",
            Self::String => "string",
            Self::Array => "array",
            Self::U64 => "u64",
            Self::I64 => "i64",
            Self::F64 => "f64",
        }
    }

    /// Bytes of a fixed-size value; None for strings and arrays.
    fn fixed_size(self) -> Option<u64> {
        match self {
            Self::U8 | Self::I8 | Self::Bool => Some(1),
            Self::U16 | Self::I16 => Some(2),
            Self::U32 | Self::I32 | Self::F32 => Some(4),
            Self::U64 | Self::I64 | Self::F64 => Some(8),
            Self::String | Self::Array => None,
        }
    }

    /// The fewest bytes one value can take on disk (a string or array is at least its length prefix).
    fn min_size(self, len_size: u64) -> u64 {
        match self {
            Self::String => len_size,
            Self::Array => 4 + len_size,
            other => other.fixed_size().unwrap_or(1),
        }
    }
}

/// A metadata value. Arrays keep only their element type and length: the vocabularies they hold are read by
/// the tokenizer, this reader only proves they are well-formed.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    String(String),
    /// A string longer than 1 MiB, checked but not kept.
    LongString {
        len: u64,
    },
    Array {
        elem: ValueType,
        len: u64,
    },
}

impl Value {
    /// Any integer type, if it is not negative.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Self::U8(v) => Some(v.into()),
            Self::U16(v) => Some(v.into()),
            Self::U32(v) => Some(v.into()),
            Self::U64(v) => Some(v),
            Self::I8(v) => u64::try_from(v).ok(),
            Self::I16(v) => u64::try_from(v).ok(),
            Self::I32(v) => u64::try_from(v).ok(),
            Self::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Self::F32(v) => Some(v.into()),
            Self::F64(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    /// `u32 4294967295`, `string "llama"`, `array of 3 u8`: how a value appears in an error.
    pub fn describe(&self) -> String {
        match self {
            Self::U8(v) => format!("u8 {v}"),
            Self::I8(v) => format!("i8 {v}"),
            Self::U16(v) => format!("u16 {v}"),
            Self::I16(v) => format!("i16 {v}"),
            Self::U32(v) => format!("u32 {v}"),
            Self::I32(v) => format!("i32 {v}"),
            Self::U64(v) => format!("u64 {v}"),
            Self::I64(v) => format!("i64 {v}"),
            Self::F32(v) => format!("f32 {v}"),
            Self::F64(v) => format!("f64 {v}"),
            Self::Bool(v) => format!("bool {v}"),
            Self::String(s) if s.chars().count() > 40 => {
                format!("string {:?}…", s.chars().take(40).collect::<String>())
            }
            Self::String(s) => format!("string {s:?}"),
            Self::LongString { len } => format!("a string of {len} bytes"),
            Self::Array { elem, len } => format!("array of {len} {}", elem.name()),
        }
    }
}

/// One entry of the tensor table, checked: known type, 1–4 non-zero dimensions, whole blocks per row, and data
/// that lies inside the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    pub name: String,
    /// Dimensions in file order (ggml's `ne`: the row length first), as llama.cpp prints them.
    pub ne: Vec<u64>,
    pub ty: GgmlType,
    /// Offset of the data from the start of the data section.
    pub offset: u64,
    pub elements: u64,
    pub bytes: u64,
}

impl TensorInfo {
    /// `[896, 151936]`
    pub fn shape(&self) -> String {
        fmt_shape(&self.ne)
    }
}

/// A GGUF file whose header, metadata and tensor table passed every check.
#[derive(Clone, Debug)]
pub struct Gguf {
    /// The file it was read from, for errors (None when parsed from bytes).
    pub path: Option<PathBuf>,
    pub version: u32,
    /// In file order.
    pub metadata: Vec<(String, Value)>,
    /// In file order.
    pub tensors: Vec<TensorInfo>,
    pub alignment: u64,
    /// Where tensor data starts (the header's end, rounded up to `alignment`).
    pub data_offset: u64,
    pub file_len: u64,
    keys: HashMap<String, usize>,
    names: HashMap<String, usize>,
}

impl Gguf {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.keys.get(key).map(|&i| &self.metadata[i].1)
    }

    pub fn string(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// `general.architecture`, which every GGUF writer sets.
    pub fn architecture(&self) -> Result<&str> {
        match self.get("general.architecture") {
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(self.error(format!("general.architecture is {}, expected a string", other.describe()))),
            None => Err(self.error("GGUF metadata lacks general.architecture (every model file sets it)")),
        }
    }

    pub fn name(&self) -> Option<&str> {
        self.string("general.name")
    }

    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.names.get(name).map(|&i| &self.tensors[i])
    }

    /// Parameters over all tensors, for display.
    pub fn parameter_count(&self) -> u64 {
        self.tensors.iter().map(|t| t.elements).fold(0u64, u64::saturating_add)
    }

    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        Error::new(message).at(self.path.as_deref())
    }
}

/// Reads and checks the header of the GGUF file at `path` (the tensor data is not read). Only regular files are
/// opened: a FIFO or device would block or never end.
pub fn read_file(path: &Path) -> Result<Gguf> {
    let fail = |m: String| Error::new(m).at(Some(path));
    let md = std::fs::metadata(path).map_err(|e| fail(format!("cannot open model file: {e}")))?;
    if !md.is_file() {
        return Err(fail("not a regular file; choose a .gguf model file".into()));
    }
    let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot open model file: {e}")))?;
    let mut g =
        parse_reader(std::io::BufReader::with_capacity(1 << 20, file), md.len()).map_err(|e| e.at(Some(path)))?;
    g.path = Some(path.to_path_buf());
    Ok(g)
}

/// Checks a whole GGUF file held in memory.
pub fn parse(bytes: &[u8]) -> Result<Gguf> {
    parse_reader(bytes, bytes.len() as u64)
}

/// Checks the GGUF header read from `r`, whose whole file is `file_len` bytes long (lengths are checked against
/// it before anything is allocated, so it must be the true length).
pub fn parse_reader<R: Read>(r: R, file_len: u64) -> Result<Gguf> {
    Parser { r: Reader { r, pos: 0, len: file_len }, len_size: 8, array_elements: 0 }.parse()
}

struct Reader<R> {
    r: R,
    pos: u64,
    len: u64,
}

impl<R: Read> Reader<R> {
    fn left(&self) -> u64 {
        self.len.saturating_sub(self.pos)
    }

    /// Fails unless `n` more bytes exist; `what` names the field for the message.
    fn need(&self, n: u64, what: &dyn Fn() -> String) -> Result<()> {
        if n > self.left() {
            return Err(Error::new(format!(
                "{} needs {n} bytes at byte {}, but only {} remain in the {}-byte file: the file is truncated or damaged",
                what(),
                self.pos,
                self.left(),
                self.len
            )));
        }
        Ok(())
    }

    fn fill(&mut self, buf: &mut [u8], what: &dyn Fn() -> String) -> Result<()> {
        self.need(buf.len() as u64, what)?;
        self.r.read_exact(buf).map_err(|e| {
            Error::new(format!(
                "cannot read {} at byte {}: {e} (the file is shorter than it was, or unreadable)",
                what(),
                self.pos
            ))
        })?;
        self.pos += buf.len() as u64;
        Ok(())
    }

    fn bytes<const N: usize>(&mut self, what: &dyn Fn() -> String) -> Result<[u8; N]> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        Ok(b)
    }

    fn u8(&mut self, what: &dyn Fn() -> String) -> Result<u8> {
        Ok(self.bytes::<1>(what)?[0])
    }

    fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32> {
        Ok(u32::from_le_bytes(self.bytes(what)?))
    }

    fn u64(&mut self, what: &dyn Fn() -> String) -> Result<u64> {
        Ok(u64::from_le_bytes(self.bytes(what)?))
    }

    /// Reads `n` bytes the caller has checked exist.
    fn vec(&mut self, n: u64, what: &dyn Fn() -> String) -> Result<Vec<u8>> {
        self.need(n, what)?;
        let mut v = vec![0u8; n as usize];
        self.fill(&mut v, what)?;
        Ok(v)
    }

    fn skip(&mut self, n: u64, what: &dyn Fn() -> String) -> Result<()> {
        self.need(n, what)?;
        let copied = std::io::copy(&mut (&mut self.r).take(n), &mut std::io::sink())
            .map_err(|e| Error::new(format!("cannot read {} at byte {}: {e}", what(), self.pos)))?;
        if copied != n {
            return Err(Error::new(format!(
                "cannot read {} at byte {}: the file ended early (it is shorter than it was)",
                what(),
                self.pos
            )));
        }
        self.pos += n;
        Ok(())
    }
}

struct Parser<R> {
    r: Reader<R>,
    /// Width of length prefixes: 4 bytes in GGUF v1, 8 after.
    len_size: u64,
    array_elements: u64,
}

impl<R: Read> Parser<R> {
    fn len(&mut self, what: &dyn Fn() -> String) -> Result<u64> {
        if self.len_size == 4 {
            Ok(self.r.u32(what)?.into())
        } else {
            self.r.u64(what)
        }
    }

    /// A length-prefixed string of at most `max` bytes; None when longer than `keep` (then skipped).
    fn string(&mut self, max: u64, keep: u64, what: &dyn Fn() -> String) -> Result<(Option<String>, u64)> {
        let n = self.len(&|| format!("the length of {}", what()))?;
        if n > self.r.left() {
            return Err(Error::new(format!(
                "{} is {n} bytes long, but only {} bytes remain after byte {}: the file is truncated or damaged",
                what(),
                self.r.left(),
                self.r.pos
            )));
        }
        if n > max {
            return Err(Error::new(format!("{} is {n} bytes long; at most {max} are allowed", what())));
        }
        if n > keep {
            self.r.skip(n, what)?;
            return Ok((None, n));
        }
        let mut v = self.r.vec(n, what)?;
        // Some writers NUL-terminate strings; candle drops the NULs too, so both readers see the same names.
        while v.last() == Some(&0) {
            v.pop();
        }
        Ok((Some(String::from_utf8_lossy(&v).into_owned()), n))
    }

    fn parse(mut self) -> Result<Gguf> {
        if self.r.len < 8 {
            // Distinguish "not GGUF at all" from "GGUF cut short" where the magic allows it.
            let mut head = vec![0u8; self.r.len as usize];
            let _ = self.r.r.read_exact(&mut head);
            if head.len() >= 4 && &head[..4] != b"GGUF" {
                return Err(not_gguf(&head[..4]));
            }
            return Err(Error::new(format!("empty or truncated file ({} bytes, no complete GGUF header)", self.r.len)));
        }
        let magic: [u8; 4] = self.r.bytes(&|| "the magic".into())?;
        if &magic != b"GGUF" {
            return Err(not_gguf(&magic));
        }
        let version = self.r.u32(&|| "the version".into())?;
        match version {
            1 => self.len_size = 4,
            2 | 3 => {}
            v if (1..=3).contains(&v.swap_bytes()) => {
                return Err(Error::new(format!(
                "big-endian GGUF file (version {}); Registro reads little-endian GGUF files, as llama.cpp writes them",
                v.swap_bytes()
            )))
            }
            v => return Err(Error::new(format!("unsupported GGUF version {v} (Registro reads versions 1 to 3)"))),
        }
        let n_tensors = self.len(&|| "the tensor count".into())?;
        let n_kv = self.len(&|| "the metadata count".into())?;
        if n_tensors > MAX_TENSORS {
            return Err(Error::new(format!(
                "the header declares {n_tensors} tensors; Registro accepts at most {MAX_TENSORS} (real models have a few thousand at most), so the file is damaged"
            )));
        }
        if n_kv > MAX_METADATA_KEYS {
            return Err(Error::new(format!(
                "the header declares {n_kv} metadata entries; at most {MAX_METADATA_KEYS} are accepted, so the file is damaged"
            )));
        }
        // Smallest possible entries: a metadata key/type/one-byte value; a tensor name/1 dim/type/offset.
        let min_kv = self.len_size + 4 + 1;
        let min_tensor = self.len_size + 4 + if version == 1 { 4 } else { 8 } + 4 + 8;
        let need = n_kv * min_kv + n_tensors * min_tensor; // both counts ≤ 2^16: cannot overflow
        if need > self.r.left() {
            return Err(Error::new(format!(
                "the header declares {n_tensors} tensors and {n_kv} metadata entries, which need at least {need} bytes, but only {} remain in the {}-byte file: the counts are damaged or the file is truncated",
                self.r.left(),
                self.r.len
            )));
        }

        let mut metadata = Vec::with_capacity(n_kv as usize);
        let mut keys = HashMap::with_capacity(n_kv as usize);
        for i in 0..n_kv {
            let (key, _) = self.string(MAX_KEY_LEN, MAX_KEY_LEN, &|| format!("metadata key #{i}"))?;
            let key = key.unwrap_or_default();
            let ty = self.r.u32(&|| format!("the type of metadata {key}"))?;
            let ty = ValueType::from_id(ty).ok_or_else(|| {
                Error::new(format!("metadata {key} has unknown value type {ty} (GGUF defines 0 to 12)"))
            })?;
            let value = self.value(ty, &key, 0)?;
            if keys.insert(key.clone(), metadata.len()).is_some() {
                return Err(Error::new(format!("metadata key {key} appears twice; the file is damaged")));
            }
            metadata.push((key, value));
        }

        let mut tensors = Vec::with_capacity(n_tensors as usize);
        let mut names = HashMap::with_capacity(n_tensors as usize);
        for i in 0..n_tensors {
            let t = self.tensor_info(i, version)?;
            if names.insert(t.name.clone(), tensors.len()).is_some() {
                return Err(Error::new(format!(
                    "tensor {} appears twice in the tensor table; the file is damaged",
                    t.name
                )));
            }
            tensors.push(t);
        }

        let header_end = self.r.pos;
        let mut g = Gguf {
            path: None,
            version,
            metadata,
            tensors,
            alignment: DEFAULT_ALIGNMENT,
            data_offset: 0,
            file_len: self.r.len,
            keys,
            names,
        };
        g.alignment = alignment(g.get("general.alignment"))?;
        // header_end ≤ file_len, alignment ≤ 1 MiB: only a file within 1 MiB of 2^64 bytes could overflow.
        g.data_offset = header_end
            .div_ceil(g.alignment)
            .checked_mul(g.alignment)
            .ok_or_else(|| Error::new("the tensor data offset overflows 64 bits"))?;
        for t in &g.tensors {
            if t.offset % g.alignment != 0 {
                return Err(Error::new(format!(
                    "tensor {}: data offset {} is not a multiple of the alignment {}; the file is damaged",
                    t.name, t.offset, g.alignment
                )));
            }
            let end = g.data_offset.checked_add(t.offset).and_then(|s| s.checked_add(t.bytes));
            match end {
                None => {
                    return Err(Error::new(format!(
                        "tensor {}: data offset {} plus its {} bytes lies beyond any file (overflows 64 bits); the file is damaged",
                        t.name, t.offset, t.bytes
                    )))
                }
                Some(end) if end > g.file_len => {
                    return Err(Error::new(format!(
                        "truncated or damaged GGUF file ({} bytes, but tensor {} needs bytes {} to {end}); download it again",
                        g.file_len,
                        t.name,
                        end - t.bytes
                    )))
                }
                Some(_) => {}
            }
        }
        Ok(g)
    }

    fn value(&mut self, ty: ValueType, key: &str, depth: u32) -> Result<Value> {
        let what = || format!("the value of metadata {key}");
        Ok(match ty {
            ValueType::U8 => Value::U8(self.r.u8(&what)?),
            ValueType::I8 => Value::I8(self.r.u8(&what)? as i8),
            ValueType::U16 => Value::U16(u16::from_le_bytes(self.r.bytes(&what)?)),
            ValueType::I16 => Value::I16(i16::from_le_bytes(self.r.bytes(&what)?)),
            ValueType::U32 => Value::U32(self.r.u32(&what)?),
            ValueType::I32 => Value::I32(self.r.u32(&what)? as i32),
            ValueType::U64 => Value::U64(self.r.u64(&what)?),
            ValueType::I64 => Value::I64(self.r.u64(&what)? as i64),
            ValueType::F32 => Value::F32(f32::from_le_bytes(self.r.bytes(&what)?)),
            ValueType::F64 => Value::F64(f64::from_le_bytes(self.r.bytes(&what)?)),
            ValueType::Bool => Value::Bool(self.bool(key)?),
            ValueType::String => match self.string(u64::MAX, KEEP_STRING, &what)? {
                (Some(s), _) => Value::String(s),
                (None, len) => Value::LongString { len },
            },
            ValueType::Array => {
                let (elem, len) = self.array(key, depth)?;
                Value::Array { elem, len }
            }
        })
    }

    fn bool(&mut self, key: &str) -> Result<bool> {
        match self.r.u8(&|| format!("the value of metadata {key}"))? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(Error::new(format!("metadata {key}: boolean byte {b} (must be 0 or 1); the file is damaged"))),
        }
    }

    /// Checks an array's elements without keeping them.
    fn array(&mut self, key: &str, depth: u32) -> Result<(ValueType, u64)> {
        if depth >= MAX_NESTING {
            return Err(Error::new(format!("metadata {key}: arrays nested more than {MAX_NESTING} deep")));
        }
        let id = self.r.u32(&|| format!("the element type of metadata {key}"))?;
        let elem = ValueType::from_id(id).ok_or_else(|| {
            Error::new(format!("metadata {key}: array of unknown value type {id} (GGUF defines 0 to 12)"))
        })?;
        let len = self.len(&|| format!("the length of metadata array {key}"))?;
        let min = elem.min_size(self.len_size);
        let left = self.r.left();
        if len.checked_mul(min).is_none_or(|n| n > left) {
            return Err(Error::new(format!(
                "metadata {key}: an array of {len} {} values needs at least {} bytes, but only {left} remain after byte {}: the file is truncated or damaged",
                elem.name(),
                len.saturating_mul(min),
                self.r.pos
            )));
        }
        self.array_elements += len;
        if self.array_elements > MAX_ARRAY_ELEMENTS {
            return Err(Error::new(format!(
                "metadata {key}: the metadata arrays hold more than {MAX_ARRAY_ELEMENTS} values in all (real vocabularies need under 2 million); the file is damaged"
            )));
        }
        match elem {
            ValueType::Bool => {
                for _ in 0..len {
                    self.bool(key)?;
                }
            }
            ValueType::String => {
                for j in 0..len {
                    self.string(u64::MAX, 0, &|| format!("metadata {key}[{j}]"))?;
                }
            }
            ValueType::Array => {
                for _ in 0..len {
                    self.array(key, depth + 1)?;
                }
            }
            fixed => {
                let size = fixed.fixed_size().unwrap_or(1);
                self.r.skip(len * size, &|| format!("the values of metadata array {key}"))?;
            }
        }
        Ok((elem, len))
    }

    fn tensor_info(&mut self, i: u64, version: u32) -> Result<TensorInfo> {
        let (name, _) =
            self.string(MAX_TENSOR_NAME_LEN, MAX_TENSOR_NAME_LEN, &|| format!("the name of tensor #{i}"))?;
        let name = name.unwrap_or_default();
        let n_dims = self.r.u32(&|| format!("the dimension count of tensor {name}"))?;
        if !(1..=MAX_DIMS).contains(&n_dims) {
            return Err(Error::new(format!(
                "tensor {name} has {n_dims} dimensions; GGUF tensors have 1 to {MAX_DIMS}"
            )));
        }
        let mut ne = Vec::with_capacity(n_dims as usize);
        for d in 0..n_dims {
            let what = || format!("dimension {d} of tensor {name}");
            ne.push(if version == 1 { self.r.u32(&what)?.into() } else { self.r.u64(&what)? });
        }
        let shape = fmt_shape(&ne);
        if ne.contains(&0) {
            return Err(Error::new(format!("tensor {name} has shape {shape}: every dimension must be at least 1")));
        }
        // ggml counts elements in int64.
        let elements =
            ne.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d)).filter(|&n| n <= i64::MAX as u64).ok_or_else(
                || {
                    Error::new(format!(
                        "tensor {name} has shape {shape}, more elements than fit in 64 bits; the file is damaged"
                    ))
                },
            )?;
        let id = self.r.u32(&|| format!("the type of tensor {name}"))?;
        let ty = GgmlType::from_id(id).map_err(|known| {
            let loadable: Vec<&str> = LOADABLE.iter().map(|t| t.name()).collect();
            Error::new(match known {
                Some(n) => format!(
                    "tensor {name} has type {n}, which Registro cannot load (it loads {}); use a file quantized to one of those, e.g. Q4_K_M or Q8_0",
                    loadable.join(", ")
                ),
                None => format!("tensor {name} has unknown ggml type {id}; the file is damaged or from a newer ggml"),
            })
        })?;
        if ne[0] % ty.block_size() != 0 {
            return Err(Error::new(format!(
                "tensor {name} has shape {shape}: rows of {} values are not whole {} blocks of {}",
                ne[0],
                ty.name(),
                ty.block_size()
            )));
        }
        let bytes = (elements / ty.block_size()).checked_mul(ty.block_bytes()).ok_or_else(|| {
            Error::new(format!(
                "tensor {name} ({shape}, {}) would take more than 2^64 bytes; the file is damaged",
                ty.name()
            ))
        })?;
        let offset = self.r.u64(&|| format!("the data offset of tensor {name}"))?;
        Ok(TensorInfo { name, ne, ty, offset, elements, bytes })
    }
}

pub(crate) fn fmt_shape(ne: &[u64]) -> String {
    let d: Vec<String> = ne.iter().map(u64::to_string).collect();
    format!("[{}]", d.join(", "))
}

fn not_gguf(magic: &[u8]) -> Error {
    Error::new(format!("not a GGUF file (starts with {:?}, expected \"GGUF\")", String::from_utf8_lossy(magic)))
}

/// `general.alignment`: absent means 32; present, it must be an integer type candle honours (it silently uses
/// 32 for u64 or float values, which would read every tensor from the wrong place), positive, a power of two
/// and at most 1 MiB.
fn alignment(v: Option<&Value>) -> Result<u64> {
    let Some(v) = v else { return Ok(DEFAULT_ALIGNMENT) };
    let n: i64 = match *v {
        Value::U8(x) => x.into(),
        Value::U16(x) => x.into(),
        Value::U32(x) => x.into(),
        Value::I8(x) => x.into(),
        Value::I16(x) => x.into(),
        Value::I32(x) => x.into(),
        _ => {
            return Err(Error::new(format!(
                "general.alignment is {}; GGUF stores it as a u32 power of two (32 is usual)",
                v.describe()
            )))
        }
    };
    if n <= 0 || !(n as u64).is_power_of_two() {
        return Err(Error::new(format!("general.alignment is {n}; it must be a power of two (32 is usual)")));
    }
    if n as u64 > MAX_ALIGNMENT {
        return Err(Error::new(format!("general.alignment is {n}; at most {MAX_ALIGNMENT} (1 MiB) is accepted")));
    }
    Ok(n as u64)
}
