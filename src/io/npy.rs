//! The NumPy `.npy` header: parsing (format versions 1.0, 2.0 and 3.0) and writing (1.0).
//!
//! A file is the magic `\x93NUMPY`, a major and minor version byte, the header length (`u16` in
//! version 1, `u32` in 2 and 3, little-endian), then a Python dict literal such as
//! `{'descr': '<u4', 'fortran_order': False, 'shape': (10,), }` padded with spaces and a newline so
//! that the data starts at a multiple of 64 bytes. Version 3 only changes the header's encoding
//! (UTF-8 rather than Latin-1). Format: <https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html>.

use crate::key::DType;

/// The magic string at the start of every `.npy` file.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// The data starts at a multiple of this (NumPy 1.x pads to 64 since 1.14).
const ALIGN: usize = 64;

/// What a parsed header says about the array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub dtype: DType,
    /// Number of elements.
    pub len: u64,
    /// Bytes before the data: magic, version, length field and the dict.
    pub data_offset: u64,
}

/// NumPy's type string for `dtype`, or `None` for types NumPy does not have (u128, i128).
pub fn typestr(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::U128 | DType::I128 => return None,
    })
}

/// The dtype of a NumPy type string. Errors say why a string is refused.
fn parse_typestr(s: &str) -> Result<DType, String> {
    let supported = "supported: <u1 <u2 <u4 <u8 <i1 <i2 <i4 <i8 <f4 <f8 (and |u1 |i1)";
    let (order, code) = match s.char_indices().nth(1) {
        Some((i, _)) => s.split_at(i),
        None => return Err(format!("unsupported dtype '{s}' ({supported})")),
    };
    let dtype = match code {
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "f4" => DType::F32,
        "f8" => DType::F64,
        "b1" => {
            return Err(format!(
                "unsupported dtype '{s}' (bool); convert with arr.astype(np.uint8) ({supported})"
            ))
        }
        _ => return Err(format!("unsupported dtype '{s}' ({supported})")),
    };
    match order {
        "<" => Ok(dtype),
        // One-byte types have no byte order; NumPy writes '|', accept '=' too.
        "|" | "=" if dtype.size() == 1 => Ok(dtype),
        "=" => Err(format!(
            "dtype '{s}' has native byte order; histosort reads little-endian data only, \
             save it with an explicit '<' type"
        )),
        ">" if dtype.size() == 1 => Ok(dtype),
        ">" => Err(format!(
            "big-endian dtype '{s}' is not supported; convert with arr.astype(arr.dtype.newbyteorder('<'))"
        )),
        _ => Err(format!("unsupported dtype '{s}' ({supported})")),
    }
}

/// A value of the header's Python literal subset.
#[derive(Clone, Debug, PartialEq)]
enum Lit {
    Str(String),
    Bool(bool),
    Int(u64),
    Tuple(Vec<Lit>),
    /// Anything else we can skip over but not use (lists, None, ...): kept as text for messages.
    Other(String),
}

/// A small recursive-descent parser for the header dict.
struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(x) => Err(format!(
                "expected '{}' at byte {} of the header, found '{}'",
                c as char, self.pos, x as char
            )),
            None => Err(format!("expected '{}' but the header ended", c as char)),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => {
                return Err(format!(
                    "expected a string at byte {} of the header",
                    self.pos
                ))
            }
        };
        self.pos += 1;
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos] != quote {
            if self.s[self.pos] == b'\\' {
                return Err("escape sequences in header strings are not supported".into());
            }
            self.pos += 1;
        }
        if self.pos >= self.s.len() {
            return Err("unterminated string in the header".into());
        }
        let text = String::from_utf8_lossy(&self.s[start..self.pos]).into_owned();
        self.pos += 1;
        Ok(text)
    }

    fn value(&mut self) -> Result<Lit, String> {
        match self.peek() {
            Some(b'\'' | b'"') => self.string().map(Lit::Str),
            Some(b'(') => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    if self.peek() == Some(b')') {
                        self.pos += 1;
                        break;
                    }
                    items.push(self.value()?);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b')') => {}
                        _ => return Err("malformed tuple in the header".into()),
                    }
                }
                Ok(Lit::Tuple(items))
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                    self.pos += 1;
                }
                // Python 2 era headers may write `10L`.
                if self.s.get(self.pos) == Some(&b'L') {
                    self.pos += 1;
                }
                let digits = String::from_utf8_lossy(&self.s[start..self.pos]);
                digits
                    .trim_end_matches('L')
                    .parse()
                    .map(Lit::Int)
                    .map_err(|_| format!("bad integer '{digits}' in the header"))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphanumeric() {
                    self.pos += 1;
                }
                match &self.s[start..self.pos] {
                    b"True" => Ok(Lit::Bool(true)),
                    b"False" => Ok(Lit::Bool(false)),
                    w => Ok(Lit::Other(String::from_utf8_lossy(w).into_owned())),
                }
            }
            Some(b'[') => {
                // Structured dtypes are lists of fields: skip to the matching bracket.
                let start = self.pos;
                let mut depth = 0usize;
                while self.pos < self.s.len() {
                    match self.s[self.pos] {
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
                Ok(Lit::Other(
                    String::from_utf8_lossy(&self.s[start..self.pos]).into_owned(),
                ))
            }
            Some(c) => Err(format!(
                "unexpected '{}' at byte {} of the header",
                c as char, self.pos
            )),
            None => Err("the header ended early".into()),
        }
    }

    fn dict(&mut self) -> Result<Vec<(String, Lit)>, String> {
        self.expect(b'{')?;
        let mut entries = Vec::new();
        loop {
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.string()?;
            self.expect(b':')?;
            let value = self.value()?;
            entries.push((key, value));
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err("malformed dict in the header (expected ',' or '}')".into()),
            }
        }
        Ok(entries)
    }
}

/// Parses a `.npy` header from the first bytes of a file: the prelude and the whole dict (whose
/// length [`header_len`] gives). Errors are plain messages; the caller adds the path.
pub fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    let (dict_start, dict_len) = header_len(bytes)?;
    let end = dict_start + dict_len;
    if bytes.len() < end {
        return Err(format!(
            "truncated header: it claims {dict_len} bytes but the file has only {} after the prelude",
            bytes.len().saturating_sub(dict_start)
        ));
    }
    let text = &bytes[dict_start..end];
    if bytes[7] == 3 && std::str::from_utf8(text).is_err() {
        return Err("a version 3.0 header must be UTF-8".into());
    }
    let mut p = Parser { s: text, pos: 0 };
    let entries = p.dict().map_err(|e| format!("malformed header: {e}"))?;
    let get = |k: &str| entries.iter().find(|(key, _)| key == k).map(|(_, v)| v);

    let descr = match get("descr") {
        Some(Lit::Str(s)) => s,
        Some(Lit::Other(s)) => {
            return Err(format!(
                "unsupported dtype {s}: structured arrays are not supported"
            ))
        }
        Some(_) => return Err("malformed header: 'descr' is not a string".into()),
        None => return Err("malformed header: no 'descr' key".into()),
    };
    let dtype = parse_typestr(descr)?;
    match get("fortran_order") {
        Some(Lit::Bool(false)) => {}
        Some(Lit::Bool(true)) => return Err(
            "fortran_order is True: only C-order arrays are supported (use np.ascontiguousarray)"
                .into(),
        ),
        Some(_) => return Err("malformed header: 'fortran_order' is not True or False".into()),
        None => return Err("malformed header: no 'fortran_order' key".into()),
    }
    let len = match get("shape") {
        Some(Lit::Tuple(dims)) => match dims.as_slice() {
            [Lit::Int(n)] => *n,
            _ => {
                let shape: Vec<String> = dims
                    .iter()
                    .map(|d| match d {
                        Lit::Int(n) => n.to_string(),
                        other => format!("{other:?}"),
                    })
                    .collect();
                let shape = match shape.len() {
                    1 => format!("({},)", shape[0]),
                    _ => format!("({})", shape.join(", ")),
                };
                return Err(format!(
                    "the array has shape {shape} ({} dimensions): only 1-D arrays of shape (n,) are \
                     supported (flatten it with arr.ravel())",
                    dims.len()
                ));
            }
        },
        Some(_) => return Err("malformed header: 'shape' is not a tuple".into()),
        None => return Err("malformed header: no 'shape' key".into()),
    };
    Ok(Header {
        dtype,
        len,
        data_offset: end as u64,
    })
}

/// Checks the magic and version; returns where the dict starts and how long it is.
pub fn header_len(bytes: &[u8]) -> Result<(usize, usize), String> {
    if bytes.len() < 6 || &bytes[..6] != MAGIC {
        return Err("not a .npy file (the magic string \\x93NUMPY is missing)".into());
    }
    if bytes.len() < 10 {
        return Err("truncated header".into());
    }
    match bytes[6] {
        1 => Ok((10, u16::from_le_bytes([bytes[8], bytes[9]]) as usize)),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("truncated header".into());
            }
            let n = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
            Ok((12, n as usize))
        }
        v => Err(format!(
            "unsupported .npy format version {v}.{} (supported: 1.0, 2.0, 3.0)",
            bytes[7]
        )),
    }
}

/// A version 1.0 header (2.0 if the dict does not fit 65535 bytes, which cannot happen for 1-D
/// arrays but costs nothing to handle) for a 1-D array of `len` elements.
pub fn write_header(dtype: DType, len: u64) -> Option<Vec<u8>> {
    let descr = typestr(dtype)?;
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({len},), }}");
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(MAGIC);
    let prelude = if dict.len() + 11 <= u16::MAX as usize {
        10
    } else {
        12
    };
    // Pad with spaces so that prelude + dict + '\n' is a multiple of ALIGN.
    let total = (prelude + dict.len() + 1).div_ceil(ALIGN) * ALIGN;
    let dict_len = total - prelude;
    if prelude == 10 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(dict_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(dict_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(version: u8, dict: &str) -> Vec<u8> {
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&[version, 0]);
        if version == 1 {
            v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        } else {
            v.extend_from_slice(&(dict.len() as u32).to_le_bytes());
        }
        v.extend_from_slice(dict.as_bytes());
        v
    }

    #[test]
    fn round_trip() {
        for d in DType::ALL {
            let Some(h) = write_header(d, 12345) else {
                assert!(matches!(d, DType::U128 | DType::I128));
                continue;
            };
            assert_eq!(h.len() % ALIGN, 0);
            assert_eq!(h.last(), Some(&b'\n'));
            let p = parse_header(&h).unwrap();
            assert_eq!(p.dtype, d);
            assert_eq!(p.len, 12345);
            assert_eq!(p.data_offset, h.len() as u64);
        }
    }

    #[test]
    fn versions_and_spellings() {
        for v in [1, 2, 3] {
            let h = header(
                v,
                "{\"descr\":\"<f8\",\"shape\":(7,),\"fortran_order\":False}\n",
            );
            let p = parse_header(&h).unwrap();
            assert_eq!((p.dtype, p.len), (DType::F64, 7));
            assert_eq!(p.data_offset, h.len() as u64);
        }
        let h = header(
            1,
            "{'descr': '|u1', 'fortran_order': False, 'shape': (3L,), }",
        );
        assert_eq!(parse_header(&h).unwrap().len, 3);
        let h = header(
            1,
            "{'descr': '<u8', 'fortran_order': False, 'shape': (0,), }",
        );
        assert_eq!(parse_header(&h).unwrap().dtype, DType::U64);
    }

    #[test]
    fn refusals() {
        let cases = [
            (
                "{'descr': '>u4', 'fortran_order': False, 'shape': (3,), }",
                "big-endian",
            ),
            (
                "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
                "unsupported dtype",
            ),
            (
                "{'descr': '<u4', 'fortran_order': True, 'shape': (3,), }",
                "fortran_order",
            ),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (3, 1), }",
                "(3, 1)",
            ),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (), }",
                "only 1-D",
            ),
            ("{'descr': '<u4', 'fortran_order': False, }", "no 'shape'"),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (3,",
                "malformed",
            ),
            (
                "{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (3,), }",
                "structured",
            ),
        ];
        for (dict, want) in cases {
            let e = parse_header(&header(1, dict)).unwrap_err();
            assert!(e.contains(want), "{dict}: {e}");
        }
        assert!(parse_header(b"hello world, not numpy")
            .unwrap_err()
            .contains("magic"));
        let mut h = header(
            1,
            "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }",
        );
        h[6] = 9;
        assert!(parse_header(&h).unwrap_err().contains("version 9"));
        let h = header(
            1,
            "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }",
        );
        assert!(parse_header(&h[..30]).unwrap_err().contains("truncated"));
    }
}
