//! Reading and writing arrays: NumPy `.npy` files and raw little-endian binary files.
//!
//! * `.npy`: format versions 1.0, 2.0 and 3.0; 1-D, C order, little-endian (or byte-sized)
//!   integer and float types: `<u1 <u2 <u4 <u8 <i1 <i2 <i4 <i8 <f4 <f8` and `|u1 |i1`. Note that
//!   NumPy's `<u8` is a 64-bit integer where histosort's [`DType::U8`] is one byte. `u128` and
//!   `i128` have no NumPy type and exist only as raw files.
//! * Raw: the elements back to back, little-endian, no header; the dtype is given by the caller.
//!
//! Reads go straight from the file into a typed `Vec` (one `read_exact` into its bytes), with the
//! size checked against the header before anything is allocated. Writes go to a temporary file
//! in the target folder that is renamed over the target at the end, so an interrupted run never
//! leaves a half-written output and a failed run leaves no output at all.
//!
//! ```
//! use histosort::io::{self, Array, FileFormat};
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("keys.npy");
//! io::write(&path, &Array::from(vec![3u32, 1, 2]), FileFormat::Npy).unwrap();
//! let back = io::read(&path, None).unwrap();
//! assert_eq!(back, Array::U32(vec![3, 1, 2]));
//! let n = histosort::with_array!(&back, v => v.len());
//! assert_eq!(n, 3);
//! ```

pub mod npy;

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::key::{DType, RadixKey};

// Elements are read and written as the host's bytes; the file formats are little-endian.
const _: () = assert!(
    cfg!(target_endian = "little"),
    "histosort::io supports little-endian hosts only"
);

/// A 1-D array of one of histosort's element types.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    U128(Vec<u128>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    I128(Vec<i128>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// Runs `$body` with `$v` bound to the typed `Vec` inside an [`Array`] (by value for an
/// `Array`, by reference for a `&Array` or `&mut Array`), whatever its element type. The body is
/// compiled once per element type, so it may call generic functions.
///
/// ```
/// use histosort::io::Array;
/// let a = Array::from(vec![1.5f32, -2.0]);
/// let bytes = histosort::with_array!(&a, v => std::mem::size_of_val(v.as_slice()));
/// assert_eq!(bytes, 8);
/// ```
#[macro_export]
macro_rules! with_array {
    ($array:expr, $v:ident => $body:expr) => {
        match $array {
            $crate::io::Array::U8($v) => $body,
            $crate::io::Array::U16($v) => $body,
            $crate::io::Array::U32($v) => $body,
            $crate::io::Array::U64($v) => $body,
            $crate::io::Array::U128($v) => $body,
            $crate::io::Array::I8($v) => $body,
            $crate::io::Array::I16($v) => $body,
            $crate::io::Array::I32($v) => $body,
            $crate::io::Array::I64($v) => $body,
            $crate::io::Array::I128($v) => $body,
            $crate::io::Array::F32($v) => $body,
            $crate::io::Array::F64($v) => $body,
        }
    };
}

/// An element type an [`Array`] can hold (every key type; its dtype is [`RadixKey::DTYPE`]).
pub trait Element: RadixKey {
    fn into_array(v: Vec<Self>) -> Array;
    /// The typed `Vec`, or the array back when it holds another type.
    fn from_array(a: Array) -> std::result::Result<Vec<Self>, Array>;
    fn slice_of(a: &Array) -> Option<&[Self]>;
}

macro_rules! element {
    ($($t:ty => $d:ident),*) => {$(
        impl Element for $t {
            fn into_array(v: Vec<Self>) -> Array {
                Array::$d(v)
            }
            fn from_array(a: Array) -> std::result::Result<Vec<Self>, Array> {
                match a {
                    Array::$d(v) => Ok(v),
                    other => Err(other),
                }
            }
            fn slice_of(a: &Array) -> Option<&[Self]> {
                match a {
                    Array::$d(v) => Some(v),
                    _ => None,
                }
            }
        }
        impl From<Vec<$t>> for Array {
            fn from(v: Vec<$t>) -> Array {
                Array::$d(v)
            }
        }
    )*};
}
element!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, u128 => U128, i8 => I8, i16 => I16,
    i32 => I32, i64 => I64, i128 => I128, f32 => F32, f64 => F64);

impl Array {
    pub fn dtype(&self) -> DType {
        with_array!(self, v => element_dtype(v))
    }

    pub fn len(&self) -> usize {
        with_array!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements' bytes, as they are written to a file.
    pub fn as_bytes(&self) -> &[u8] {
        with_array!(self, v => bytemuck::cast_slice(v.as_slice()))
    }

    /// The typed slice, when the array holds `T`.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::slice_of(self)
    }

    /// The typed `Vec`, or the array back when it holds another type.
    pub fn into_vec<T: Element>(self) -> std::result::Result<Vec<T>, Array> {
        T::from_array(self)
    }

    /// An array of `len` zeros of `dtype`.
    pub fn zeros(dtype: DType, len: usize) -> Array {
        fn z<T: Element>(len: usize) -> Array {
            T::into_array(vec![T::zeroed(); len])
        }
        match dtype {
            DType::U8 => z::<u8>(len),
            DType::U16 => z::<u16>(len),
            DType::U32 => z::<u32>(len),
            DType::U64 => z::<u64>(len),
            DType::U128 => z::<u128>(len),
            DType::I8 => z::<i8>(len),
            DType::I16 => z::<i16>(len),
            DType::I32 => z::<i32>(len),
            DType::I64 => z::<i64>(len),
            DType::I128 => z::<i128>(len),
            DType::F32 => z::<f32>(len),
            DType::F64 => z::<f64>(len),
        }
    }

    /// The elements' bytes, writable (used to read a file straight into the array).
    fn as_bytes_mut(&mut self) -> &mut [u8] {
        with_array!(self, v => bytemuck::cast_slice_mut(v.as_mut_slice()))
    }
}

fn element_dtype<T: Element>(_: &[T]) -> DType {
    T::DTYPE
}

/// How a file stores its array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    /// NumPy `.npy`: the header names the dtype and length.
    Npy,
    /// Raw little-endian elements of the given dtype, no header.
    Raw(DType),
}

/// Whether `path` names a `.npy` file (by its extension, in any case).
pub fn is_npy_path(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
}

impl FileFormat {
    /// The format a file name implies: `.npy` files are NumPy files, anything else is raw and
    /// needs `raw_dtype`.
    pub fn for_path(path: &Path, raw_dtype: Option<DType>) -> Result<FileFormat> {
        if is_npy_path(path) {
            Ok(FileFormat::Npy)
        } else {
            match raw_dtype {
                Some(d) => Ok(FileFormat::Raw(d)),
                None => Err(Error::format(
                    path,
                    "not a .npy file, so it is read as raw binary data, which needs an explicit \
                     dtype (--dtype u8|u16|u32|u64|u128|i8|i16|i32|i64|i128|f32|f64)",
                )),
            }
        }
    }
}

/// Reads an array: a `.npy` file by its header, any other file as raw data of `raw_dtype`.
pub fn read(path: impl AsRef<Path>, raw_dtype: Option<DType>) -> Result<Array> {
    let path = path.as_ref();
    match FileFormat::for_path(path, raw_dtype)? {
        FileFormat::Npy => read_npy(path),
        FileFormat::Raw(d) => read_raw(path, d),
    }
}

/// Opens `path` and returns the file and its length.
fn open(path: &Path) -> Result<(File, u64)> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::format(path, "is a directory, not a file"));
    }
    Ok((file, meta.len()))
}

/// Reads `len` elements of `dtype` from the current position of `file`.
fn read_elements(file: &mut File, path: &Path, dtype: DType, len: u64) -> Result<Array> {
    let len = usize::try_from(len)
        .map_err(|_| Error::format(path, format!("{len} elements do not fit in memory")))?;
    let mut array = Array::zeros(dtype, len);
    file.read_exact(array.as_bytes_mut())
        .map_err(|e| Error::io(path, e))?;
    Ok(array)
}

/// Reads a raw little-endian file of `dtype` elements.
pub fn read_raw(path: impl AsRef<Path>, dtype: DType) -> Result<Array> {
    let path = path.as_ref();
    let (mut file, size) = open(path)?;
    let elem = dtype.size() as u64;
    if size % elem != 0 {
        return Err(Error::format(
            path,
            format!(
                "file size {size} bytes is not a multiple of the {dtype} element size ({elem} \
                 bytes): wrong --dtype, or a truncated file?"
            ),
        ));
    }
    read_elements(&mut file, path, dtype, size / elem)
}

/// Reads the header of a `.npy` file without reading its data.
pub fn read_npy_header(path: impl AsRef<Path>) -> Result<npy::Header> {
    let path = path.as_ref();
    let (mut file, size) = open(path)?;
    npy_header(&mut file, path, size)
}

fn npy_header(file: &mut File, path: &Path, size: u64) -> Result<npy::Header> {
    let mut prelude = Vec::with_capacity(12);
    Read::by_ref(file)
        .take(12)
        .read_to_end(&mut prelude)
        .map_err(|e| Error::io(path, e))?;
    let (start, dict_len) = npy::header_len(&prelude).map_err(|m| Error::format(path, m))?;
    let total = (start + dict_len) as u64;
    if total > size {
        return Err(Error::format(
            path,
            format!("truncated header: it claims {total} bytes but the file has {size}"),
        ));
    }
    let mut bytes = vec![0u8; start + dict_len];
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.read_exact(&mut bytes))
        .map_err(|e| Error::io(path, e))?;
    let header = npy::parse_header(&bytes).map_err(|m| Error::format(path, m))?;
    let data = size - header.data_offset;
    let want = header.len.checked_mul(header.dtype.size() as u64);
    match want {
        Some(w) if w == data => Ok(header),
        Some(w) if w > data => Err(Error::format(
            path,
            format!(
                "truncated data: the header says {} {} elements ({w} bytes) but only {data} bytes \
                 follow it",
                header.len, header.dtype
            ),
        )),
        Some(w) => Err(Error::format(
            path,
            format!(
                "{} unexpected bytes after the {} {} elements the header announces",
                data - w,
                header.len,
                header.dtype
            ),
        )),
        None => Err(Error::format(
            path,
            format!("the header's length {} is impossibly large", header.len),
        )),
    }
}

/// Reads a `.npy` file.
pub fn read_npy(path: impl AsRef<Path>) -> Result<Array> {
    let path = path.as_ref();
    let (mut file, size) = open(path)?;
    let header = npy_header(&mut file, path, size)?;
    file.seek(SeekFrom::Start(header.data_offset))
        .map_err(|e| Error::io(path, e))?;
    read_elements(&mut file, path, header.dtype, header.len)
}

/// Writes `array` to `path` in `format` (a raw format's dtype must match the array's).
pub fn write(path: impl AsRef<Path>, array: &Array, format: FileFormat) -> Result<()> {
    write_together(&[(path.as_ref(), array, format)])
}

/// Writes several files as one step: each goes to a temporary file first, and only when every
/// one is complete are they renamed over their paths. So a failure while writing (a missing
/// folder, a full disk) leaves every path as it was, and keys and values sorted together never
/// end up one written and the other not (short of a rename failing between the two).
pub fn write_together(files: &[(&Path, &Array, FileFormat)]) -> Result<()> {
    let mut staged = Vec::with_capacity(files.len());
    for &(path, array, format) in files {
        let header = match format {
            FileFormat::Npy => npy_out_header(path, array.dtype(), array.len())?,
            FileFormat::Raw(d) if d == array.dtype() => Vec::new(),
            FileFormat::Raw(d) => {
                return Err(Error::invalid(format!(
                    "cannot write {} data as raw {d}",
                    array.dtype()
                )))
            }
        };
        staged.push(stage(path, &[&header, array.as_bytes()])?);
    }
    pause_before_rename();
    // On error the temporary files not yet renamed are removed as they are dropped.
    for s in staged {
        s.persist()?;
    }
    Ok(())
}

/// `HISTOSORT_PAUSE_BEFORE_RENAME_MS`: milliseconds to wait between staging the outputs and
/// renaming them, so that a test can interrupt a run while its temporary files exist.
fn pause_before_rename() {
    if let Some(ms) = std::env::var("HISTOSORT_PAUSE_BEFORE_RENAME_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// The temporary files of outputs staged and not yet renamed or removed.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn staged_paths() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    STAGED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the temporary files of every output being written now (staged, not yet renamed)
/// and returns how many it removed. For an interrupted process (the CLI calls it on Ctrl-C,
/// SIGTERM and SIGHUP before it exits), which runs no destructors to clean them up: the outputs
/// stay as they were, and no `.histosort-*.tmp` file is left beside them.
pub fn remove_staged() -> usize {
    staged_paths()
        .drain(..)
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// A complete output in its temporary file, waiting to be renamed over `path`. Listed in
/// [`STAGED`] while it exists.
struct Staged {
    tmp: Option<tempfile::NamedTempFile>,
    tmp_path: PathBuf,
    path: PathBuf,
}

impl Staged {
    fn new(tmp: tempfile::NamedTempFile, path: PathBuf) -> Staged {
        let tmp_path = tmp.path().to_path_buf();
        staged_paths().push(tmp_path.clone());
        Staged {
            tmp: Some(tmp),
            tmp_path,
            path,
        }
    }

    /// Renames the temporary file over the output (on error it is removed as it is dropped).
    fn persist(mut self) -> Result<()> {
        match self.tmp.take() {
            Some(tmp) => match tmp.persist(&self.path) {
                Ok(_) => Ok(()),
                Err(e) => Err(Error::io(&self.path, e.error)),
            },
            None => Ok(()),
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // The temporary file is gone (renamed, or removed as `tmp` drops, which it did first
        // unless still held: then drop it now, before it leaves the list).
        drop(self.tmp.take());
        staged_paths().retain(|p| p != &self.tmp_path);
    }
}

/// Writes a `.npy` file (format version 1.0) holding `data`.
pub fn write_npy<T: Element>(path: impl AsRef<Path>, data: &[T]) -> Result<()> {
    let path = path.as_ref();
    let header = npy_out_header(path, T::DTYPE, data.len())?;
    write_atomic(path, &[&header, bytemuck::cast_slice(data)])
}

/// The `.npy` header of `len` elements of `dtype`, or why `path` cannot be written as `.npy`.
fn npy_out_header(path: &Path, dtype: DType, len: usize) -> Result<Vec<u8>> {
    npy::write_header(dtype, len as u64).ok_or_else(|| {
        Error::format(
            path,
            format!(
                "{dtype} has no NumPy dtype, so it cannot be written as .npy; write a raw file \
                 (any other extension) instead"
            ),
        )
    })
}

/// Writes raw bytes (the elements, little-endian, no header).
pub fn write_raw(path: impl AsRef<Path>, bytes: &[u8]) -> Result<()> {
    write_atomic(path.as_ref(), &[bytes])
}

/// Writes `parts` to a temporary file next to `path` and renames it over `path`.
///
/// A `path` that is a symbolic link is followed: the file it points to is replaced and the link
/// kept (renaming over the link itself would replace the link and leave its target as it was).
fn write_atomic(path: &Path, parts: &[&[u8]]) -> Result<()> {
    stage(path, parts)?.persist()
}

/// The folder a file path is in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The file an output path names: `path` itself, or for a symbolic link the path it finally
/// points to, which need not exist yet (a dangling link is written through, as a shell
/// redirection would: the file is created where the link points, when that folder exists).
fn output_target(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    // Linux gives up after 40 links too (ELOOP).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p).map_err(|e| Error::io(path, e))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => {
                if p != path {
                    let dir = folder_of(&p);
                    if !dir.is_dir() {
                        return Err(Error::format(
                            path,
                            format!(
                                "is a symbolic link to {}, whose folder {} does not exist",
                                p.display(),
                                dir.display()
                            ),
                        ));
                    }
                }
                return Ok(p);
            }
        }
    }
    Err(Error::format(path, "too many levels of symbolic links"))
}

/// Writes `parts` to a temporary file in `path`'s folder, to be renamed over `path` (over the
/// file a symbolic link points to, for a link).
fn stage(path: &Path, parts: &[&[u8]]) -> Result<Staged> {
    let path = output_target(path)?;
    let path = path.as_path();
    let dir = folder_of(path);
    if path.is_dir() {
        return Err(Error::format(path, "is a directory; give a file name"));
    }
    let tmp = tempfile::Builder::new()
        .prefix(".histosort-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io(path, e))?;
    // Listed from here on, so that an interrupted write leaves no temporary file either.
    let mut staged = Staged::new(tmp, path.to_path_buf());
    if let Some(tmp) = staged.tmp.as_mut() {
        for part in parts {
            tmp.write_all(part).map_err(|e| Error::io(path, e))?;
        }
        tmp.flush().map_err(|e| Error::io(path, e))?;
        set_permissions(tmp.as_file(), path);
    }
    Ok(staged)
}

/// Temporary files are created private (0600); give the output the permissions a plain
/// `File::create` would have (or the replaced file's). Best effort: failures are ignored.
fn set_permissions(file: &File, target: &Path) {
    let perms = match std::fs::metadata(target) {
        Ok(m) => m.permissions(),
        Err(_) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::Permissions::from_mode(0o644)
            }
            #[cfg(not(unix))]
            {
                return;
            }
        }
    };
    let _ = file.set_permissions(perms);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn staged_files_are_listed_until_renamed_or_dropped() {
        // (remove_staged itself is tested through the CLI, in a process of its own: here it
        // would remove the files of tests running beside this one.)
        let dir = tmp();
        let listed = |p: &Path| staged_paths().iter().any(|q| q == p);
        let out = dir.path().join("a.bin");
        let s = stage(&out, &[b"abc"]).unwrap();
        let t = s.tmp_path.clone();
        assert!(t.exists() && listed(&t));
        s.persist().unwrap();
        assert!(!t.exists() && !listed(&t));
        assert_eq!(std::fs::read(&out).unwrap(), b"abc");
        let s = stage(&out, &[b"xyz"]).unwrap();
        let t = s.tmp_path.clone();
        assert!(t.exists() && listed(&t));
        drop(s);
        assert!(!t.exists() && !listed(&t));
        assert_eq!(std::fs::read(&out).unwrap(), b"abc");
    }

    #[test]
    fn npy_round_trip_every_numpy_type() {
        let dir = tmp();
        let arrays = [
            Array::from(vec![1u8, 2, 255]),
            Array::from(vec![1u16, 65535]),
            Array::from(vec![7u32; 1000]),
            Array::from(vec![u64::MAX, 0]),
            Array::from(vec![-1i8, 5]),
            Array::from(vec![-1i16, 5]),
            Array::from(vec![i32::MIN, 5]),
            Array::from(vec![i64::MIN, 5]),
            Array::from(vec![f32::NAN, -0.0, 1.5]),
            Array::from(vec![f64::INFINITY, -2.5]),
            Array::from(Vec::<u32>::new()),
        ];
        for (i, a) in arrays.iter().enumerate() {
            let p = dir.path().join(format!("{i}.npy"));
            write(&p, a, FileFormat::Npy).unwrap();
            let b = read(&p, None).unwrap();
            assert_eq!(a.dtype(), b.dtype());
            assert_eq!(a.as_bytes(), b.as_bytes());
        }
    }

    #[test]
    fn raw_round_trip_and_errors() {
        let dir = tmp();
        let p = dir.path().join("x.bin");
        let a = Array::from(vec![1u128, u128::MAX]);
        write(&p, &a, FileFormat::Raw(DType::U128)).unwrap();
        assert_eq!(read(&p, Some(DType::U128)).unwrap(), a);
        assert_eq!(read_raw(&p, DType::U32).unwrap().len(), 8);
        let e = read_raw(&p, DType::I128).map(|a| a.len()).unwrap();
        assert_eq!(e, 2);
        std::fs::write(&p, [0u8; 7]).unwrap();
        let e = read_raw(&p, DType::U32).unwrap_err().to_string();
        assert!(e.contains("not a multiple") && e.contains("x.bin"), "{e}");
        let e = read(&p, None).unwrap_err().to_string();
        assert!(e.contains("dtype"), "{e}");
        let e = read(dir.path().join("missing.npy"), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.npy"), "{e}");
        let e = write_npy(dir.path().join("y.npy"), &[1u128]).unwrap_err();
        assert!(e.to_string().contains("no NumPy dtype"));
        assert!(!dir.path().join("y.npy").exists());
    }

    #[test]
    fn npy_truncated_and_trailing() {
        let dir = tmp();
        let p = dir.path().join("t.npy");
        write(&p, &Array::from(vec![1u32, 2, 3]), FileFormat::Npy).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 2]).unwrap();
        let e = read(&p, None).unwrap_err().to_string();
        assert!(e.contains("truncated data"), "{e}");
        let mut more = bytes.clone();
        more.push(0);
        std::fs::write(&p, &more).unwrap();
        let e = read(&p, None).unwrap_err().to_string();
        assert!(e.contains("unexpected bytes"), "{e}");
        std::fs::write(&p, &bytes[..20]).unwrap();
        let e = read(&p, None).unwrap_err().to_string();
        assert!(e.contains("truncated header"), "{e}");
        std::fs::write(&p, b"short").unwrap();
        let e = read(&p, None).unwrap_err().to_string();
        assert!(e.contains("magic"), "{e}");
    }

    #[test]
    fn dispatch_macro() {
        let mut a = Array::from(vec![3i16, 1, 2]);
        with_array!(&mut a, v => v.reverse());
        assert_eq!(a, Array::I16(vec![2, 1, 3]));
        let total: f64 = with_array!(&a, v => v.len() as f64);
        assert_eq!(total, 3.0);
        assert_eq!(a.clone().into_vec::<i16>().unwrap().len(), 3);
        assert!(a.into_vec::<u16>().is_err());
    }
}
