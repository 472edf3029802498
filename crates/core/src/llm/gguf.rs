//! Reading a GGUF file (version 2 or 3, little-endian): its metadata and where each tensor's
//! data is. Only reads; the tensor bytes stay in the caller's buffer.
//!
//! Layout: magic `GGUF`, version (u32), tensor count (u64), metadata count (u64), the metadata
//! (key string, value type u32, value), the tensor infos (name string, dimension count u32, that
//! many u64 dimensions, type u32, offset u64 from the start of the data), padding to
//! `general.alignment` (default 32), then the data. A string is a u64 length and UTF-8 bytes.
//!
//! Every error is a [`GgufError`]; no input makes the reader panic or allocate more than the
//! input could describe.

use std::collections::BTreeMap;

/// What is wrong with a GGUF file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GgufError {
    /// Not a GGUF file.
    #[error("not a GGUF file")]
    NotGguf,
    /// A version this reader does not know.
    #[error("GGUF version {0} is not supported (2 and 3 are)")]
    Version(u32),
    /// The file ends early or a count does not fit it.
    #[error("the GGUF file is cut short ({0})")]
    Truncated(&'static str),
    /// A value type this reader does not know.
    #[error("unknown GGUF value type {0}")]
    ValueType(u32),
    /// A string that is not UTF-8.
    #[error("a GGUF string is not UTF-8")]
    Utf8,
    /// A metadata entry the model needs is missing or has another type.
    #[error("the GGUF metadata has no usable `{0}`")]
    Missing(String),
    /// A tensor the model needs is missing, or has another shape or type.
    #[error("tensor `{0}`: {1}")]
    Tensor(String, String),
}

/// A metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Any unsigned integer type, widened.
    U(u64),
    /// Any signed integer type, widened.
    I(i64),
    /// f32 or f64, widened.
    F(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
    /// An array of strings (token lists, merges).
    Strs(Vec<String>),
    /// An array of integers (token types), widened.
    Ints(Vec<i64>),
    /// Any other array: its length only.
    Other(usize),
}

/// The element types of a tensor this engine can use (named as GGML names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum DType {
    /// 32-bit floats.
    F32,
    /// 16-bit floats.
    F16,
    /// Blocks of 32: f16 scale, f16 minimum, 16 bytes of 4-bit values.
    Q4_1,
    /// Blocks of 32: f16 scale, 16 bytes of 4-bit values (offset 8).
    Q4_0,
    /// Blocks of 32: f16 scale, 32 signed bytes.
    Q8_0,
    /// Blocks of 32: f16 scale, 4 bytes of fifth bits, 16 bytes of 4-bit values (offset 16).
    Q5_0,
    /// Super-blocks of 256: f16 scale and minimum, 12 bytes of 6-bit sub-block scales and
    /// minimums, 128 bytes of 4-bit values.
    Q4_K,
    /// Super-blocks of 256: 128 bytes of low 4 bits, 64 of high 2 bits, 16 signed sub-block
    /// scales, f16 scale.
    Q6_K,
    /// Blocks of 32: f16 scale and minimum, 4 bytes of fifth bits, 16 bytes of 4-bit values.
    Q5_1,
    /// Super-blocks of 256: as `Q4_K`, with 32 bytes of fifth bits before the 4-bit values.
    Q5_K,
}

impl DType {
    fn from_ggml(t: u32) -> Option<DType> {
        Some(match t {
            0 => DType::F32,
            1 => DType::F16,
            2 => DType::Q4_0,
            3 => DType::Q4_1,
            6 => DType::Q5_0,
            7 => DType::Q5_1,
            8 => DType::Q8_0,
            12 => DType::Q4_K,
            13 => DType::Q5_K,
            14 => DType::Q6_K,
            _ => return None,
        })
    }

    /// Values per block and bytes per block.
    pub fn block(self) -> (usize, usize) {
        match self {
            DType::F32 => (1, 4),
            DType::F16 => (1, 2),
            DType::Q4_0 => (32, 18),
            DType::Q4_1 => (32, 20),
            DType::Q8_0 => (32, 34),
            DType::Q5_0 => (32, 22),
            DType::Q4_K => (256, 144),
            DType::Q6_K => (256, 210),
            DType::Q5_1 => (32, 24),
            DType::Q5_K => (256, 176),
        }
    }

    /// Bytes taken by `n` elements (`n` a multiple of the block size for quantized types).
    pub fn bytes(self, n: usize) -> Option<usize> {
        let (values, bytes) = self.block();
        n.is_multiple_of(values)
            .then(|| (n / values).checked_mul(bytes))
            .flatten()
    }
}

/// Where a tensor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorInfo {
    /// Dimensions, innermost first (GGUF order: `[columns, rows]` for a matrix).
    pub dims: Vec<u64>,
    /// The element type, or the GGML type number when it is one this engine cannot use.
    pub dtype: Result<DType, u32>,
    /// Byte range in the file.
    pub start: usize,
    /// Bytes.
    pub len: usize,
}

/// A read GGUF file.
#[derive(Debug, Clone, PartialEq)]
pub struct Gguf {
    /// Metadata by key.
    pub meta: BTreeMap<String, Value>,
    /// Tensors by name.
    pub tensors: BTreeMap<String, TensorInfo>,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], GgufError> {
        let end = self.pos.checked_add(n).ok_or(GgufError::Truncated(what))?;
        let s = self
            .data
            .get(self.pos..end)
            .ok_or(GgufError::Truncated(what))?;
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, GgufError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, GgufError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    /// A count of items each at least `min` bytes long: never more than the rest could hold.
    fn count(&mut self, min: usize, what: &'static str) -> Result<usize, GgufError> {
        let n = self.u64(what)?;
        let left = (self.data.len() - self.pos) / min.max(1);
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or(GgufError::Truncated(what))
    }
    fn string(&mut self, what: &'static str) -> Result<String, GgufError> {
        let n = self.count(1, what)?;
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| GgufError::Utf8)
    }
    fn value(&mut self, t: u32) -> Result<Value, GgufError> {
        const W: &str = "a metadata value";
        Ok(match t {
            0 => Value::U(u64::from(self.take(1, W)?[0])),
            1 => Value::I(i64::from(self.take(1, W)?[0] as i8)),
            2 => {
                let b = self.take(2, W)?;
                Value::U(u64::from(u16::from_le_bytes([b[0], b[1]])))
            }
            3 => {
                let b = self.take(2, W)?;
                Value::I(i64::from(i16::from_le_bytes([b[0], b[1]])))
            }
            4 => Value::U(u64::from(self.u32(W)?)),
            5 => Value::I(i64::from(self.u32(W)? as i32)),
            6 => Value::F(f64::from(f32::from_bits(self.u32(W)?))),
            7 => Value::Bool(self.take(1, W)?[0] != 0),
            8 => Value::Str(self.string(W)?),
            9 => {
                let inner = self.u32(W)?;
                match inner {
                    8 => {
                        let n = self.count(8, W)?;
                        let mut v = Vec::with_capacity(n);
                        for _ in 0..n {
                            v.push(self.string(W)?);
                        }
                        Value::Strs(v)
                    }
                    0..=7 | 10..=12 => {
                        let size = match inner {
                            0 | 1 | 7 => 1,
                            2 | 3 => 2,
                            4..=6 => 4,
                            _ => 8,
                        };
                        let n = self.count(size, W)?;
                        // 32-bit integers (token types) are kept, widened (at most twice their
                        // size in the file); any other array only by its length.
                        let keep = matches!(inner, 4 | 5);
                        let mut ints = Vec::with_capacity(if keep { n } else { 0 });
                        for _ in 0..n {
                            match self.value(inner)? {
                                Value::U(u) if keep => ints.push(u as i64),
                                Value::I(i) if keep => ints.push(i),
                                _ => {}
                            }
                        }
                        if keep {
                            Value::Ints(ints)
                        } else {
                            Value::Other(n)
                        }
                    }
                    other => return Err(GgufError::ValueType(other)),
                }
            }
            10 => Value::U(self.u64(W)?),
            11 => Value::I(self.u64(W)? as i64),
            12 => Value::F(f64::from_bits(self.u64(W)?)),
            other => return Err(GgufError::ValueType(other)),
        })
    }
}

/// The magic, version, tensor count and metadata at the start of a GGUF file.
fn header(r: &mut Reader) -> Result<(usize, BTreeMap<String, Value>), GgufError> {
    if r.take(4, "magic").map_err(|_| GgufError::NotGguf)? != b"GGUF" {
        return Err(GgufError::NotGguf);
    }
    let version = r.u32("version")?;
    if !(2..=3).contains(&version) {
        return Err(GgufError::Version(version));
    }
    let n_tensors = r.count(24, "tensor count")?;
    let n_meta = r.count(12, "metadata count")?;
    let mut meta = BTreeMap::new();
    for _ in 0..n_meta {
        let key = r.string("a metadata key")?;
        let t = r.u32("a metadata type")?;
        let v = r.value(t)?;
        meta.insert(key, v);
    }
    Ok((n_tensors, meta))
}

/// Reads only the metadata at the start of a GGUF file (`data` may end anywhere after it): enough
/// for the tokenizer, before the weights have arrived. The result lists no tensors.
pub fn read_meta(data: &[u8]) -> Result<Gguf, GgufError> {
    let (_, meta) = header(&mut Reader { data, pos: 0 })?;
    Ok(Gguf {
        meta,
        tensors: BTreeMap::new(),
    })
}

/// Reads the header of `data`, a whole GGUF file (or at least its header and every tensor's
/// data, which is checked to be inside `data`).
pub fn read(data: &[u8]) -> Result<Gguf, GgufError> {
    read_head(data, data.len())
}

/// Reads the header at the start of a GGUF file of `total` bytes from `head`, its first bytes
/// (at least the whole header, else [`GgufError::Truncated`]): every tensor's data is checked to
/// be inside the file.
pub fn read_head(head: &[u8], total: usize) -> Result<Gguf, GgufError> {
    let data = head;
    let mut r = Reader { data, pos: 0 };
    let (n_tensors, meta) = header(&mut r)?;
    let mut infos = Vec::with_capacity(n_tensors);
    for _ in 0..n_tensors {
        let name = r.string("a tensor name")?;
        let n_dims = r.u32("a tensor's dimensions")? as usize;
        if n_dims > 4 {
            return Err(GgufError::Tensor(name, format!("{n_dims} dimensions")));
        }
        let mut dims = Vec::with_capacity(n_dims);
        for _ in 0..n_dims {
            dims.push(r.u64("a tensor dimension")?);
        }
        let t = r.u32("a tensor type")?;
        let offset = r.u64("a tensor offset")?;
        infos.push((name, dims, t, offset));
    }
    let align = match meta.get("general.alignment") {
        Some(Value::U(a)) if *a > 0 && a.is_power_of_two() && *a <= 4096 => *a as usize,
        None => 32,
        _ => return Err(GgufError::Missing("general.alignment".into())),
    };
    let base = r.pos.div_ceil(align) * align;
    let mut tensors = BTreeMap::new();
    for (name, dims, t, offset) in infos {
        let n = dims
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| GgufError::Tensor(name.clone(), "too large".into()))?;
        let dtype = DType::from_ggml(t).ok_or(t);
        let len = match dtype {
            Ok(d) => d.bytes(n).ok_or_else(|| {
                let whole = n.is_multiple_of(d.block().0);
                let why = if whole {
                    "too large"
                } else {
                    "not whole blocks"
                };
                GgufError::Tensor(name.clone(), why.into())
            })?,
            Err(_) => 0,
        };
        let start = usize::try_from(offset)
            .ok()
            .and_then(|o| base.checked_add(o))
            .filter(|s| s.checked_add(len).is_some_and(|e| e <= total))
            .ok_or_else(|| {
                GgufError::Tensor(name.clone(), "its data is outside the file".into())
            })?;
        tensors.insert(
            name,
            TensorInfo {
                dims,
                dtype,
                start,
                len,
            },
        );
    }
    Ok(Gguf { meta, tensors })
}

impl Gguf {
    /// An unsigned integer entry.
    pub fn u(&self, key: &str) -> Result<u64, GgufError> {
        match self.meta.get(key) {
            Some(Value::U(u)) => Ok(*u),
            Some(Value::I(i)) if *i >= 0 => Ok(*i as u64),
            _ => Err(GgufError::Missing(key.into())),
        }
    }
    /// A float entry.
    pub fn f(&self, key: &str) -> Result<f64, GgufError> {
        match self.meta.get(key) {
            Some(Value::F(f)) => Ok(*f),
            _ => Err(GgufError::Missing(key.into())),
        }
    }
    /// A string entry.
    pub fn s(&self, key: &str) -> Result<&str, GgufError> {
        match self.meta.get(key) {
            Some(Value::Str(s)) => Ok(s),
            _ => Err(GgufError::Missing(key.into())),
        }
    }
    /// A string-array entry.
    pub fn strs(&self, key: &str) -> Result<&[String], GgufError> {
        match self.meta.get(key) {
            Some(Value::Strs(s)) => Ok(s),
            _ => Err(GgufError::Missing(key.into())),
        }
    }
    /// An integer-array entry.
    pub fn ints(&self, key: &str) -> Result<&[i64], GgufError> {
        match self.meta.get(key) {
            Some(Value::Ints(s)) => Ok(s),
            _ => Err(GgufError::Missing(key.into())),
        }
    }
    /// Tensor `name` with `dims` (innermost first) and one of `types`.
    pub fn tensor(
        &self,
        name: &str,
        dims: &[u64],
        types: &[DType],
    ) -> Result<&TensorInfo, GgufError> {
        let t = self
            .tensors
            .get(name)
            .ok_or_else(|| GgufError::Tensor(name.into(), "missing".into()))?;
        if t.dims != dims {
            return Err(GgufError::Tensor(
                name.into(),
                format!("shape {:?}, expected {:?}", t.dims, dims),
            ));
        }
        match t.dtype {
            Ok(d) if types.contains(&d) => Ok(t),
            Ok(d) => Err(GgufError::Tensor(
                name.into(),
                format!("type {d:?} is not supported here"),
            )),
            Err(n) => Err(GgufError::Tensor(
                name.into(),
                format!("GGML type {n} is not supported"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF file written field by field.
    struct File(Vec<u8>);

    impl File {
        /// The magic, `version`, and the tensor and metadata counts.
        fn new(version: u32, tensors: u64, meta: u64) -> File {
            File(b"GGUF".to_vec()).u32(version).u64(tensors).u64(meta)
        }
        fn u32(mut self, v: u32) -> File {
            self.0.extend(v.to_le_bytes());
            self
        }
        fn u64(mut self, v: u64) -> File {
            self.0.extend(v.to_le_bytes());
            self
        }
        fn bytes(mut self, b: &[u8]) -> File {
            self.0.extend(b);
            self
        }
        /// A string: its length, then its bytes.
        fn str(self, s: &str) -> File {
            self.u64(s.len() as u64).bytes(s.as_bytes())
        }
        /// One tensor's info: name, dimensions, type, offset.
        fn tensor(self, name: &str, dims: &[u64], t: u32, offset: u64) -> File {
            let mut f = self.str(name).u32(dims.len() as u32);
            for &d in dims {
                f = f.u64(d);
            }
            f.u32(t).u64(offset)
        }
        /// Zero bytes up to `len`.
        fn padded(mut self, len: usize) -> File {
            self.0.resize(len.max(self.0.len()), 0);
            self
        }
    }

    fn tensor_err(why: &str) -> GgufError {
        GgufError::Tensor("t".into(), why.into())
    }

    #[test]
    fn crafted_headers_are_refused_with_what_is_wrong() {
        // See: #37. Counts and lengths that claim more than the file holds, absurd dimensions and
        // types: each refused before anything of that size is allocated or read.
        let max = u64::MAX;
        let cases: Vec<(&str, File, GgufError, &str)> = vec![
            (
                "another format",
                File(b"GGML\x03\0\0\0".to_vec()),
                GgufError::NotGguf,
                "not a GGUF file",
            ),
            (
                "nothing",
                File(Vec::new()),
                GgufError::NotGguf,
                "not a GGUF file",
            ),
            (
                "version 1",
                File::new(1, 0, 0),
                GgufError::Version(1),
                "GGUF version 1 is not supported (2 and 3 are)",
            ),
            (
                "version 2³²−1",
                File::new(u32::MAX, 0, 0),
                GgufError::Version(u32::MAX),
                "GGUF version 4294967295 is not supported (2 and 3 are)",
            ),
            (
                "2⁶⁴−1 tensors",
                File::new(3, max, 0),
                GgufError::Truncated("tensor count"),
                "the GGUF file is cut short (tensor count)",
            ),
            (
                "2⁴⁰ tensors in 4 KB",
                File::new(3, 1 << 40, 0).padded(4096),
                GgufError::Truncated("tensor count"),
                "the GGUF file is cut short (tensor count)",
            ),
            (
                "2⁶⁴−1 metadata entries",
                File::new(3, 0, max),
                GgufError::Truncated("metadata count"),
                "the GGUF file is cut short (metadata count)",
            ),
            (
                "a key of 2⁶⁴−1 bytes",
                File::new(3, 0, 1).u64(max).padded(4096),
                GgufError::Truncated("a metadata key"),
                "the GGUF file is cut short (a metadata key)",
            ),
            (
                "a string value of 2⁶² bytes",
                File::new(3, 0, 1).str("k").u32(8).u64(1 << 62).padded(4096),
                GgufError::Truncated("a metadata value"),
                "the GGUF file is cut short (a metadata value)",
            ),
            (
                "an array of 2⁶⁴−1 bytes",
                File::new(3, 0, 1)
                    .str("k")
                    .u32(9)
                    .u32(0)
                    .u64(max)
                    .padded(4096),
                GgufError::Truncated("a metadata value"),
                "the GGUF file is cut short (a metadata value)",
            ),
            (
                "an array of 2⁶⁰ strings",
                File::new(3, 0, 1)
                    .str("k")
                    .u32(9)
                    .u32(8)
                    .u64(1 << 60)
                    .padded(4096),
                GgufError::Truncated("a metadata value"),
                "the GGUF file is cut short (a metadata value)",
            ),
            (
                "a string in the array longer than the file",
                File::new(3, 0, 1)
                    .str("k")
                    .u32(9)
                    .u32(8)
                    .u64(2)
                    .u64(max)
                    .padded(4096),
                GgufError::Truncated("a metadata value"),
                "the GGUF file is cut short (a metadata value)",
            ),
            (
                "arrays of arrays",
                File::new(3, 0, 1).str("k").u32(9).u32(9).u64(1).padded(64),
                GgufError::ValueType(9),
                "unknown GGUF value type 9",
            ),
            (
                "an unknown value type",
                File::new(3, 0, 1).str("k").u32(13).padded(64),
                GgufError::ValueType(13),
                "unknown GGUF value type 13",
            ),
            (
                "a key that is not UTF-8",
                File::new(3, 0, 1).u64(2).bytes(&[0xC3, 0x28]).u32(4).u32(1),
                GgufError::Utf8,
                "a GGUF string is not UTF-8",
            ),
            (
                "2³²−1 dimensions",
                File::new(3, 1, 0).str("t").u32(u32::MAX).padded(4096),
                tensor_err("4294967295 dimensions"),
                "tensor `t`: 4294967295 dimensions",
            ),
            (
                "dimensions whose product overflows",
                File::new(3, 1, 0).tensor("t", &[max, 2], 0, 0).padded(4096),
                tensor_err("too large"),
                "tensor `t`: too large",
            ),
            (
                "2⁶² floats",
                File::new(3, 1, 0)
                    .tensor("t", &[1 << 31, 1 << 31], 0, 0)
                    .padded(4096),
                tensor_err("too large"),
                "tensor `t`: too large",
            ),
            (
                "4 TiB of floats in 4 KB",
                File::new(3, 1, 0)
                    .tensor("t", &[1 << 20, 1 << 20], 0, 0)
                    .padded(4096),
                tensor_err("its data is outside the file"),
                "tensor `t`: its data is outside the file",
            ),
            (
                "an offset of 2⁶⁴−1",
                File::new(3, 1, 0).tensor("t", &[1], 0, max).padded(4096),
                tensor_err("its data is outside the file"),
                "tensor `t`: its data is outside the file",
            ),
            (
                "a Q8_0 tensor of 33 values",
                File::new(3, 1, 0).tensor("t", &[33], 8, 0).padded(4096),
                tensor_err("not whole blocks"),
                "tensor `t`: not whole blocks",
            ),
            (
                "an alignment of 0",
                File::new(3, 0, 1).str("general.alignment").u32(4).u32(0),
                GgufError::Missing("general.alignment".into()),
                "the GGUF metadata has no usable `general.alignment`",
            ),
            (
                "an alignment of 2³¹",
                File::new(3, 0, 1)
                    .str("general.alignment")
                    .u32(4)
                    .u32(1 << 31),
                GgufError::Missing("general.alignment".into()),
                "the GGUF metadata has no usable `general.alignment`",
            ),
        ];
        for (what, file, want, words) in cases {
            let got = read(&file.0).map(|_| ()).unwrap_err();
            assert_eq!(got, want, "{what}");
            assert_eq!(got.to_string(), words, "{what}");
        }
    }

    #[test]
    fn a_file_cut_anywhere_is_refused() {
        // See: #37. A small valid file: metadata of every kept kind, two tensors.
        let file = File::new(3, 2, 4)
            .str("general.architecture")
            .u32(8)
            .str("llama")
            .str("tokenizer.ggml.tokens")
            .u32(9)
            .u32(8)
            .u64(2)
            .str("a")
            .str("é")
            .str("tokenizer.ggml.token_type")
            .u32(9)
            .u32(5)
            .u64(2)
            .u32(1)
            .u32(3)
            .str("general.alignment")
            .u32(4)
            .u32(32)
            .tensor("t", &[4, 2], 0, 0)
            .tensor("u", &[32], 8, 32);
        let head = file.0.len();
        let whole = file.padded(head.div_ceil(32) * 32 + 32 + 34).0;
        let g = read(&whole).unwrap();
        assert_eq!(g.s("general.architecture").unwrap(), "llama");
        assert_eq!(g.strs("tokenizer.ggml.tokens").unwrap(), ["a", "é"]);
        assert_eq!(g.ints("tokenizer.ggml.token_type").unwrap(), [1, 3]);
        assert_eq!(g.tensors["u"].len, 34);
        for cut in 0..whole.len() {
            let err = read(&whole[..cut]).map(|_| ()).unwrap_err();
            let expected = match cut {
                0..=3 => matches!(err, GgufError::NotGguf),
                _ if cut < head => matches!(err, GgufError::Truncated(_)),
                _ => {
                    matches!(&err, GgufError::Tensor(_, why) if why == "its data is outside the file")
                }
            };
            assert!(expected, "cut at {cut} of {}: {err:?}", whole.len());
        }
        // Only the metadata is needed before the weights arrive.
        assert!(read_meta(&whole[..head - 20]).is_ok());
    }
}
