//! The `histosort` binary on real temporary files: every command, and every kind of bad input
//! (nonzero exit, a message naming the problem, and no output file left behind).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use histosort::io::{self, Array, FileFormat};
use histosort::{DType, RadixKey};

/// The binary under test: the one cargo built, or the one `HISTOSORT_BIN` names (the staged
/// copy on a GPU machine without a Rust toolchain: `.device/run-gpu-suite.sh` runs these tests
/// with it, so the default `auto` backend is the GPU there).
fn exe() -> PathBuf {
    std::env::var_os("HISTOSORT_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_histosort")))
}

fn histosort(args: &[&str]) -> Output {
    Command::new(exe())
        .args(args)
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .expect("run histosort")
}

fn ok(args: &[&str]) -> Output {
    let out = histosort(args);
    assert!(
        out.status.success(),
        "histosort {args:?} failed with {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs a command that must fail: nonzero exit and `needle` in its stderr; returns stderr.
fn fails(args: &[&str], needle: &str) -> String {
    let out = histosort(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        !out.status.success(),
        "histosort {args:?} should have failed\nstderr:\n{err}"
    );
    assert!(
        err.to_lowercase().contains(&needle.to_lowercase()),
        "histosort {args:?}: stderr does not mention '{needle}':\n{err}"
    );
    err
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
    fn npy<T: io::Element>(&self, name: &str, data: Vec<T>) -> PathBuf {
        let p = self.path(name);
        io::write(&p, &T::into_array(data), FileFormat::Npy).expect("write npy");
        p
    }
    fn raw<T: io::Element>(&self, name: &str, data: Vec<T>) -> PathBuf {
        let p = self.path(name);
        io::write(&p, &T::into_array(data), FileFormat::Raw(T::DTYPE)).expect("write raw");
        p
    }
    /// Files in the folder other than the given inputs.
    fn others(&self, inputs: &[&Path]) -> Vec<PathBuf> {
        std::fs::read_dir(self.dir.path())
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| !inputs.contains(&p.as_path()))
            .collect()
    }
}

/// Deterministic pseudo-random words (splitmix64).
fn words(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .collect()
}

fn sorted_by_radix<K: RadixKey>(v: &[K], descending: bool) -> Vec<K> {
    let mut w = v.to_vec();
    // Stable, so equal keys keep their order in both directions, as histosort's sort does.
    if descending {
        w.sort_by_key(|k| std::cmp::Reverse(k.to_radix()));
    } else {
        w.sort_by_key(|k| k.to_radix());
    }
    w
}

fn bits_of<K: RadixKey>(v: &[K]) -> Vec<K::Bits> {
    v.iter().map(|k| k.to_radix()).collect()
}

fn read<T: io::Element>(p: &Path, dtype: Option<DType>) -> Vec<T> {
    io::read(p, dtype)
        .expect("read output")
        .into_vec::<T>()
        .unwrap_or_else(|a| panic!("output has dtype {}", a.dtype()))
}

// ---------------------------------------------------------------------------------------------
// sort

fn check_sort_npy<K: RadixKey + io::Element>(data: Vec<K>) {
    let d = Dir::new();
    let input = d.npy("in.npy", data.clone());
    let output = d.path("out.npy");
    for descending in [false, true] {
        let mut args = vec!["sort", s(&input), "-o", s(&output), "--backend", "cpu"];
        if descending {
            args.push("--descending");
        }
        let out = ok(&args);
        let got: Vec<K> = read(&output, None);
        assert_eq!(
            bits_of(&got),
            bits_of(&sorted_by_radix(&data, descending)),
            "{} descending={descending}",
            K::DTYPE
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(" {} keys", K::DTYPE)) && err.contains("keys/s"),
            "summary line: {err}"
        );
    }
}

#[test]
fn sort_npy_every_numpy_dtype() {
    let w = words(5000, 1);
    check_sort_npy::<u8>(w.iter().map(|&x| x as u8).collect());
    check_sort_npy::<u16>(w.iter().map(|&x| x as u16).collect());
    check_sort_npy::<u32>(w.iter().map(|&x| x as u32).collect());
    check_sort_npy::<u64>(w.clone());
    check_sort_npy::<i8>(w.iter().map(|&x| x as i8).collect());
    check_sort_npy::<i16>(w.iter().map(|&x| x as i16).collect());
    check_sort_npy::<i32>(w.iter().map(|&x| x as i32).collect());
    check_sort_npy::<i64>(w.iter().map(|&x| x as i64).collect());
    let mut f: Vec<f32> = w.iter().map(|&x| f32::from_bits(x as u32)).collect();
    f.extend([
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ]);
    check_sort_npy::<f32>(f);
    let mut f: Vec<f64> = w.iter().map(|&x| (x as i64) as f64 / 1e9).collect();
    f.extend([f64::NAN, -0.0, 0.0, f64::NEG_INFINITY]);
    check_sort_npy::<f64>(f);
    check_sort_npy::<u32>(Vec::new());
    check_sort_npy::<u32>(vec![7]);
}

#[test]
fn sort_raw_files() {
    let d = Dir::new();
    let w = words(3001, 2);
    let keys: Vec<i32> = w.iter().map(|&x| x as i32).collect();
    let input = d.raw("keys.bin", keys.clone());
    let output = d.path("sorted.bin");
    ok(&["sort", s(&input), "--dtype", "i32", "-o", s(&output), "-q"]);
    let got: Vec<i32> = read(&output, Some(DType::I32));
    let mut want = keys.clone();
    want.sort();
    assert_eq!(got, want);

    // u128: raw only.
    let keys: Vec<u128> = w
        .iter()
        .map(|&x| (x as u128) << 64 | x as u128 >> 3)
        .collect();
    let input = d.raw("wide.bin", keys.clone());
    let output = d.path("wide-sorted.dat");
    ok(&["sort", s(&input), "--dtype", "u128", "-o", s(&output)]);
    let mut want = keys;
    want.sort();
    assert_eq!(read::<u128>(&output, Some(DType::U128)), want);

    // Raw in, .npy out: the output's extension picks its format.
    let keys: Vec<f64> = w.iter().map(|&x| x as f64).collect();
    let input = d.raw("f.f64", keys.clone());
    let output = d.path("f.npy");
    ok(&["sort", s(&input), "--dtype", "float64", "-o", s(&output)]);
    let mut want = keys;
    want.sort_by(f64::total_cmp);
    assert_eq!(read::<f64>(&output, None), want);
}

#[test]
fn sort_bits_and_digits() {
    let d = Dir::new();
    let keys: Vec<u32> = words(4000, 3).iter().map(|&x| x as u32).collect();
    let input = d.npy("k.npy", keys.clone());
    let output = d.path("o.npy");
    ok(&[
        "sort",
        s(&input),
        "-o",
        s(&output),
        "--bits",
        "8:16",
        "--digit-bits",
        "3",
        "--algorithm",
        "auto",
    ]);
    let mut want = keys;
    want.sort_by_key(|k| (k >> 8) & 0xff);
    assert_eq!(read::<u32>(&output, None), want);
    fails(
        &["sort", s(&input), "-o", s(&output), "--bits", "8:40"],
        "bit range",
    );
    fails(
        &["sort", s(&input), "-o", s(&output), "--algorithm", "bogus"],
        "bogus",
    );
}

#[test]
fn sort_pairs_with_values() {
    let d = Dir::new();
    // Few distinct keys: stability shows in the payload.
    let keys: Vec<i16> = words(6000, 4).iter().map(|&x| (x % 7) as i16 - 3).collect();
    let vals: Vec<f32> = (0..keys.len()).map(|i| i as f32).collect();
    let kin = d.npy("k.npy", keys.clone());
    let vin = d.npy("v.npy", vals.clone());
    let (kout, vout) = (d.path("ks.npy"), d.path("vs.npy"));
    for descending in [false, true] {
        let mut args = vec![
            "sort",
            s(&kin),
            "-o",
            s(&kout),
            "--values",
            s(&vin),
            "--values-out",
            s(&vout),
        ];
        if descending {
            args.push("--descending");
        }
        ok(&args);
        let mut idx: Vec<usize> = (0..keys.len()).collect();
        if descending {
            idx.sort_by_key(|&i| std::cmp::Reverse(keys[i]));
        } else {
            idx.sort_by_key(|&i| keys[i]);
        }
        let want_k: Vec<i16> = idx.iter().map(|&i| keys[i]).collect();
        let want_v: Vec<f32> = idx.iter().map(|&i| vals[i]).collect();
        assert_eq!(read::<i16>(&kout, None), want_k);
        assert_eq!(read::<f32>(&vout, None), want_v);
    }

    // A raw payload of 8-byte elements: the width follows from the size.
    let vals: Vec<u64> = words(keys.len(), 5);
    let vin = d.raw("v.bin", vals.clone());
    let vout = d.path("vs.bin");
    ok(&[
        "sort",
        s(&kin),
        "-o",
        s(&kout),
        "--values",
        s(&vin),
        "--values-out",
        s(&vout),
    ]);
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    idx.sort_by_key(|&i| keys[i]);
    let want_v: Vec<u64> = idx.iter().map(|&i| vals[i]).collect();
    assert_eq!(read::<u64>(&vout, Some(DType::U64)), want_v);
}

#[test]
fn argsort_writes_the_permutation() {
    let d = Dir::new();
    let keys: Vec<f32> = words(2500, 6)
        .iter()
        .map(|&x| (x % 100) as f32 - 50.5)
        .collect();
    let input = d.npy("k.npy", keys.clone());
    let output = d.path("perm.npy");
    ok(&["sort", s(&input), "-o", s(&output), "--argsort"]);
    let perm: Vec<u32> = read(&output, None);
    let mut want: Vec<u32> = (0..keys.len() as u32).collect();
    want.sort_by(|&a, &b| keys[a as usize].total_cmp(&keys[b as usize]));
    assert_eq!(perm, want);
}

#[test]
fn in_place() {
    let d = Dir::new();
    let keys: Vec<u64> = words(1000, 7);
    let input = d.npy("k.npy", keys.clone());
    // Same file through another spelling of the path: still refused without --in-place.
    let alias = d.dir.path().join(".").join("k.npy");
    let before = std::fs::read(&input).expect("read");
    fails(&["sort", s(&input), "-o", s(&alias)], "--in-place");
    assert_eq!(
        std::fs::read(&input).expect("read"),
        before,
        "input changed"
    );
    ok(&["sort", s(&input), "-o", s(&alias), "--in-place"]);
    let mut want = keys.clone();
    want.sort();
    assert_eq!(read::<u64>(&input, None), want);

    // --in-place without -o sorts keys and values in their own files.
    let keys: Vec<u8> = words(500, 8).iter().map(|&x| x as u8).collect();
    let vals: Vec<u32> = (0..500).collect();
    let kin = d.npy("k8.npy", keys.clone());
    let vin = d.npy("v32.npy", vals);
    ok(&["sort", s(&kin), "--values", s(&vin), "--in-place"]);
    let got_k: Vec<u8> = read(&kin, None);
    let got_v: Vec<u32> = read(&vin, None);
    for i in 0..500 {
        assert_eq!(keys[got_v[i] as usize], got_k[i]);
    }
    assert!(got_k.windows(2).all(|w| w[0] <= w[1]));
    assert!((1..500).all(|i| got_k[i - 1] != got_k[i] || got_v[i - 1] < got_v[i]));
    assert_eq!(d.others(&[]).len(), 3, "no temporary files left behind");
}

/// `--in-place` on a symbolic link sorts the file it points to and keeps the link.
#[cfg(unix)]
#[cfg(unix)]
#[test]
fn an_interrupted_run_leaves_no_temporary_file() {
    // A pairs sort in place, interrupted (SIGTERM, SIGINT) while both outputs sit complete in
    // their temporary files: the handler removes them, the inputs stay as they were and the
    // exit status is 130.
    for signal in ["-TERM", "-INT"] {
        let d = Dir::new();
        let keys: Vec<u32> = words(1000, 21).iter().map(|&w| w as u32).collect();
        let values: Vec<u32> = (0..1000).collect();
        let k = d.npy("k.npy", keys.clone());
        let v = d.npy("v.npy", values.clone());
        let child = Command::new(exe())
            .args([
                "sort",
                s(&k),
                "--values",
                s(&v),
                "--in-place",
                "--backend",
                "cpu",
                "-q",
            ])
            .env("HISTOSORT_PAUSE_BEFORE_RENAME_MS", "20000")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run histosort");
        let staged = || {
            d.others(&[&k, &v])
                .into_iter()
                .filter(|p| p.to_string_lossy().ends_with(".tmp"))
                .count()
        };
        let start = std::time::Instant::now();
        while staged() < 2 {
            assert!(
                start.elapsed().as_secs() < 15,
                "the outputs were never staged"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let killed = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            start.elapsed().as_secs() < 15,
            "{signal}: the run was not interrupted"
        );
        assert_eq!(out.status.code(), Some(130), "{signal}: {err}");
        assert!(err.contains("removed 2 temporary file"), "{signal}: {err}");
        assert_eq!(d.others(&[&k, &v]), Vec::<PathBuf>::new(), "{signal}");
        assert_eq!(read::<u32>(&k, None), keys, "{signal}");
        assert_eq!(read::<u32>(&v, None), values, "{signal}");
    }
}

fn assert_still_a_link(link: &Path) {
    assert!(
        std::fs::symlink_metadata(link)
            .expect("link")
            .file_type()
            .is_symlink(),
        "the link was replaced by a file"
    );
}

#[test]
fn in_place_through_a_symlink() {
    let d = Dir::new();
    let keys: Vec<u32> = words(300, 9).iter().map(|&x| x as u32).collect();
    let target = d.npy("target.npy", keys.clone());
    let link = d.path("link.npy");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    ok(&["sort", s(&link), "--in-place"]);
    assert_still_a_link(&link);
    let mut want = keys;
    want.sort();
    assert_eq!(read::<u32>(&target, None), want, "the link's target");
    assert_eq!(d.others(&[]).len(), 2, "no temporary files left behind");
}

/// An output that is a dangling link is written through (created where the link points, as a
/// shell redirection would), through a chain of links too; one whose target folder does not
/// exist is an error naming the link and the folder, and nothing is written.
#[test]
fn output_through_a_dangling_symlink() {
    let d = Dir::new();
    let keys: Vec<u32> = words(300, 10).iter().map(|&x| x as u32).collect();
    let input = d.npy("in.npy", keys.clone());
    let mut want = keys;
    want.sort();
    // link.npy -> hop.npy -> out.npy (relative, not there yet).
    let link = d.path("link.npy");
    std::os::unix::fs::symlink("hop.npy", &link).expect("symlink");
    std::os::unix::fs::symlink("out.npy", d.path("hop.npy")).expect("symlink");
    ok(&["sort", s(&input), "-o", s(&link)]);
    assert_eq!(
        read::<u32>(&d.path("out.npy"), None),
        want,
        "the link's target"
    );
    assert_still_a_link(&link);
    // A link into a folder that does not exist.
    let bad = d.path("bad.npy");
    std::os::unix::fs::symlink("no-such-folder/x.npy", &bad).expect("symlink");
    let err = fails(&["sort", s(&input), "-o", s(&bad)], "does not exist");
    assert!(
        err.contains("bad.npy") && err.contains("no-such-folder"),
        "{err}"
    );
    assert!(!d.path("no-such-folder").exists());
    let mut names: Vec<String> = d
        .others(&[])
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["bad.npy", "hop.npy", "in.npy", "link.npy", "out.npy"]
    );
}

// ---------------------------------------------------------------------------------------------
// hist

#[test]
fn hist_bytes_table_and_json() {
    let d = Dir::new();
    let data: Vec<u8> = b"abracadabra".to_vec();
    let input = d.npy("b.npy", data);
    let out = ok(&["hist", s(&input)]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("count"), "{table}");
    let row_a = table
        .lines()
        .find(|l| l.trim_start().starts_with("97 "))
        .unwrap_or_else(|| panic!("no row for bin 97:\n{table}"));
    assert!(
        row_a.contains("[97, 98)") && row_a.contains(" 5 "),
        "{row_a}"
    );

    let out = ok(&["hist", s(&input), "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let bins = v["bins"].as_array().expect("bins");
    assert_eq!(bins.len(), 256);
    assert_eq!(bins[b'a' as usize]["count"], 5);
    assert_eq!(bins[b'b' as usize]["lower"], 98);
    assert_eq!(bins[b'b' as usize]["upper"], 99);
    assert_eq!(v["n"], 11);
    assert_eq!(v["counted"], 11);
    assert_eq!(v["outside"], 0);
}

#[test]
fn hist_u16_words_and_rgba_channels() {
    let d = Dir::new();
    // u16 data: one bin per value, 65536 in the JSON; the table lists the non-empty ones.
    let words: Vec<u16> = vec![7, 7, 65535, 0, 300, 7];
    let input = d.npy("w.npy", words);
    let out = ok(&["hist", s(&input), "--json", "-q"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let bins = v["bins"].as_array().expect("bins");
    assert_eq!(bins.len(), 65536);
    assert_eq!(bins[7]["count"], 3);
    assert_eq!(bins[65535]["count"], 1);
    assert_eq!(bins[65535]["upper"], 65536);
    assert_eq!(bins[8]["count"], 0);
    assert_eq!(v["kind"], "words");
    assert_eq!(v["counted"], 6);
    let out = ok(&["hist", s(&input), "-q"]);
    let table = String::from_utf8_lossy(&out.stdout);
    let rows = table
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains('['))
        .count();
    assert_eq!(rows, 4, "{table}");
    assert!(table.contains("65536 bins, 65532 of them empty"), "{table}");

    // RGBA pixels: --channels alone means 4; byte i is in channel i % 4.
    let pixels: Vec<u8> = vec![1, 2, 3, 4, 1, 9, 3, 4, 200, 2, 3, 255];
    let img = d.raw("img.rgba", pixels.clone());
    let out = ok(&[
        "hist",
        s(&img),
        "--dtype",
        "u8",
        "--channels",
        "--json",
        "-q",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["channels"], 4);
    assert_eq!(v["pixels"], 3);
    assert_eq!(v["bins"][1]["counts"], serde_json::json!([2, 0, 0, 0]));
    assert_eq!(v["bins"][3]["counts"], serde_json::json!([0, 0, 3, 0]));
    assert_eq!(v["bins"][255]["counts"], serde_json::json!([0, 0, 0, 1]));
    assert_eq!(v["counted"], serde_json::json!([3, 3, 3, 3]));
    let out = ok(&["hist", s(&img), "--dtype", "u8", "--channels", "3", "-q"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("4 pixels of 3 channels"), "{table}");
    fails(
        &["hist", s(&img), "--dtype", "u8", "--channels", "5"],
        "1 to 4 channels",
    );
    let odd = d.raw("odd.rgba", pixels[..10].to_vec());
    fails(
        &["hist", s(&odd), "--dtype", "u8", "--channels"],
        "whole number",
    );
    fails(&["hist", s(&input), "--channels", "2"], "u8 data");
}

#[test]
fn hist_even_and_range_bins() {
    let d = Dir::new();
    let data: Vec<f64> = vec![-1.0, 0.0, 0.1, 0.25, 0.5, 0.75, 0.99, 1.0, 2.0, f64::NAN];
    let input = d.npy("x.npy", data);
    let out = ok(&["hist", s(&input), "--bins", "4", "--range", "0:1", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let counts: Vec<u64> = v["bins"]
        .as_array()
        .expect("bins")
        .iter()
        .map(|b| b["count"].as_u64().expect("count"))
        .collect();
    assert_eq!(counts, [2, 1, 1, 2]);
    assert_eq!(v["outside"], 4);
    assert_eq!(v["nan"], 1);
    assert_eq!(v["bins"][1]["lower"], 0.25);

    let out = ok(&["hist", s(&input), "--edges=-1,0,0.5,10", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let counts: Vec<u64> = v["bins"]
        .as_array()
        .expect("bins")
        .iter()
        .map(|b| b["count"].as_u64().expect("count"))
        .collect();
    assert_eq!(counts, [1, 3, 5]);
    assert_eq!(v["kind"], "range");

    // Integers: exact bins over [-10, 10) in 4 bins of 5; default range spans the data.
    let ints: Vec<i32> = (-12..12).collect();
    let input = d.raw("i.bin", ints);
    let out = ok(&[
        "hist",
        s(&input),
        "--dtype",
        "i32",
        "--bins",
        "4",
        "--range",
        "-10:10",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["bins"][0]["lower"], -10);
    assert_eq!(v["bins"][0]["upper"], -5);
    assert!(v["bins"]
        .as_array()
        .expect("bins")
        .iter()
        .all(|b| b["count"] == 5));
    let out = ok(&["hist", s(&input), "--dtype", "i32", "--bins", "3", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["counted"], 24);
    let out = ok(&["hist", s(&input), "--dtype", "i32", "--bins", "3"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("24 in bins, 0 outside"));
    fails(
        &["hist", s(&input), "--dtype", "i32", "--range", "a:b"],
        "range",
    );
    // A bin count of 0 or past the limit is an error, with or without a range (0 once
    // divided by zero for integer data).
    for range in [&["--range", "0:5"][..], &[]] {
        for bins in ["0", "4294967296"] {
            let mut args = vec!["hist", s(&input), "--dtype", "i32", "--bins", bins];
            args.extend_from_slice(range);
            let err = fails(&args, "bins");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
    fails(
        &["hist", s(&input), "--dtype", "i32", "--edges", "3,2"],
        "increasing",
    );
}

/// `hist INPUT ARGS --json`: the counts and the bins' bounds as integers.
fn hist_json_ints(input: &Path, args: &[&str]) -> (Vec<u64>, Vec<(i128, i128)>, u64) {
    let mut all = vec!["hist", s(input)];
    all.extend_from_slice(args);
    all.push("--json");
    let out = ok(&all);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let bins = v["bins"].as_array().expect("bins");
    let int = |x: &serde_json::Value| {
        x.as_i64()
            .map(i128::from)
            .or(x.as_u64().map(i128::from))
            .or(x.as_f64().map(|f| f as i128))
            .expect("integer bound")
    };
    (
        bins.iter()
            .map(|b| b["count"].as_u64().expect("count"))
            .collect(),
        bins.iter()
            .map(|b| (int(&b["lower"]), int(&b["upper"])))
            .collect(),
        v["outside"].as_u64().expect("outside"),
    )
}

/// Even integer bins by their definition: x in [lo, end) goes to floor((x - lo) * bins / span).
fn int_bins_oracle(data: &[i128], lo: i128, end: i128, bins: usize) -> Vec<u64> {
    let mut counts = vec![0u64; bins];
    for &x in data.iter().filter(|&&x| lo <= x && x < end) {
        counts[((x - lo) * bins as i128 / (end - lo)) as usize] += 1;
    }
    counts
}

#[test]
fn hist_even_bins_through_the_largest_value() {
    // Data holding the type's largest value: the default range and a --range one past it
    // count it (they once left it outside, and `--range 0:256` was refused for u8 data).
    let d = Dir::new();
    let bytes: Vec<u8> = words(5000, 11).iter().map(|w| (w >> 7) as u8).collect();
    assert!(bytes.contains(&255));
    let input = d.npy("b.npy", bytes.clone());
    let wide: Vec<i128> = bytes.iter().map(|&b| b as i128).collect();
    let cases: [(&[&str], i128, i128, usize); 6] = [
        (&["--bins", "16"], 0, 256, 16),
        (&["--bins", "256"], 0, 256, 256),
        (&["--bins", "7", "--range", "0:256"], 0, 256, 7),
        (&["--bins", "12", "--range", "250:256"], 250, 256, 12),
        (&["--bins", "3", "--range", "255:256"], 255, 256, 3),
        (&["--bins", "5", "--range", "3:200"], 3, 200, 5),
    ];
    for (args, lo, end, bins) in cases {
        let (counts, bounds, outside) = hist_json_ints(&input, args);
        let want = int_bins_oracle(&wide, lo, end, bins);
        assert_eq!(counts, want, "u8 {args:?}");
        assert_eq!(bounds.first().map(|b| b.0), Some(lo), "u8 {args:?}");
        assert_eq!(bounds.last().map(|b| b.1), Some(end), "u8 {args:?}");
        let inside: u64 = want.iter().sum();
        assert_eq!(outside, bytes.len() as u64 - inside, "u8 {args:?}");
    }
    fails(&["hist", s(&input), "--range", "0:257"], "256");

    // The widest types: the largest value itself, and both ends of the signed range.
    let mut u: Vec<u64> = words(300, 12);
    u.extend([u64::MAX, u64::MAX, 0]);
    let input = d.npy("u.npy", u.clone());
    let (counts, _, outside) = hist_json_ints(&input, &["--bins", "5"]);
    let wide: Vec<i128> = u.iter().map(|&x| x as i128).collect();
    assert_eq!(counts, int_bins_oracle(&wide, 0, 1 << 64, 5));
    assert_eq!(outside, 0);
    let mut i: Vec<i64> = words(300, 13).iter().map(|&w| w as i64).collect();
    i.extend([i64::MAX, i64::MIN, -1]);
    let input = d.npy("i.npy", i.clone());
    let wide: Vec<i128> = i.iter().map(|&x| x as i128).collect();
    let (counts, _, outside) = hist_json_ints(&input, &["--bins", "9"]);
    assert_eq!(counts, int_bins_oracle(&wide, i64::MIN as i128, 1 << 63, 9));
    assert_eq!(outside, 0);
    let (counts, _, _) = hist_json_ints(
        &input,
        &["--bins", "4", "--range", "-5:9223372036854775808"],
    );
    assert_eq!(counts, int_bins_oracle(&wide, -5, 1 << 63, 4));
    // One value, the largest: one bin that holds it.
    let input = d.npy("m.npy", vec![i8::MAX; 9]);
    let (counts, bounds, _) = hist_json_ints(&input, &[]);
    assert_eq!((counts, bounds), (vec![9], vec![(127, 128)]));
}

// ---------------------------------------------------------------------------------------------
// scan and gen

#[test]
fn scan_inclusive_and_exclusive() {
    let d = Dir::new();
    let data: Vec<i64> = vec![3, -1, 4, 1, -5, 9];
    let input = d.npy("x.npy", data);
    let output = d.path("y.npy");
    ok(&["scan", s(&input), "-o", s(&output)]);
    assert_eq!(read::<i64>(&output, None), [3, 2, 6, 7, 2, 11]);
    ok(&["scan", s(&input), "-o", s(&output), "--exclusive"]);
    assert_eq!(read::<i64>(&output, None), [0, 3, 2, 6, 7, 2]);
    let f = d.raw("f.bin", vec![0.5f32, 0.25, 1.0]);
    let g = d.path("g.bin");
    ok(&["scan", s(&f), "--dtype", "f32", "-o", s(&g), "--inclusive"]);
    assert_eq!(read::<f32>(&g, Some(DType::F32)), [0.5, 0.75, 1.75]);

    let bytes = d.npy("b.npy", vec![1u8, 2]);
    let bad = d.path("bad.npy");
    fails(
        &["scan", s(&bytes), "-o", s(&bad)],
        "u32, u64, i32, i64, f32, f64",
    );
    assert!(!bad.exists());
}

#[test]
fn gen_then_sort() {
    let d = Dir::new();
    let keys = d.path("keys.npy");
    let sorted = d.path("sorted.npy");
    for (dtype, dist) in [
        ("u32", "uniform"),
        ("f32", "specials"),
        ("i64", "entropy-0.337"),
        ("u16", "distinct-5"),
    ] {
        ok(&[
            "gen",
            s(&keys),
            "--dtype",
            dtype,
            "--n",
            "10000",
            "--dist",
            dist,
            "--seed",
            "9",
        ]);
        let a = io::read(&keys, None).expect("read gen output");
        assert_eq!(a.len(), 10000);
        assert_eq!(a.dtype().name(), dtype);
        ok(&["sort", s(&keys), "-o", s(&sorted)]);
        let b = io::read(&sorted, None).expect("read sorted");
        match (a, b) {
            (Array::U32(a), Array::U32(b)) => {
                assert_eq!(bits_of(&b), bits_of(&sorted_by_radix(&a, false)))
            }
            (Array::F32(a), Array::F32(b)) => {
                assert_eq!(bits_of(&b), bits_of(&sorted_by_radix(&a, false)))
            }
            (Array::I64(a), Array::I64(b)) => {
                assert_eq!(bits_of(&b), bits_of(&sorted_by_radix(&a, false)))
            }
            (Array::U16(a), Array::U16(b)) => {
                assert_eq!(bits_of(&b), bits_of(&sorted_by_radix(&a, false)))
            }
            (a, b) => panic!("unexpected dtypes {} {}", a.dtype(), b.dtype()),
        }
    }
    // Same seed, same data.
    let again = d.path("again.npy");
    ok(&[
        "gen",
        s(&again),
        "--dtype",
        "u16",
        "--n",
        "10000",
        "--dist",
        "distinct-5",
        "--seed",
        "9",
    ]);
    assert_eq!(std::fs::read(&again).ok(), std::fs::read(&keys).ok());
    // Sizes like 2^10 and raw u128 output.
    let wide = d.path("wide.bin");
    ok(&["gen", s(&wide), "--dtype", "u128", "--n", "2^10"]);
    assert_eq!(std::fs::metadata(&wide).expect("meta").len(), 16 << 10);
    let bad = d.path("wide.npy");
    fails(
        &["gen", s(&bad), "--dtype", "u128", "--n", "10"],
        "no NumPy dtype",
    );
    assert!(!bad.exists());
    fails(
        &["gen", s(&bad), "--n", "10", "--dist", "zipf"],
        "unknown distribution",
    );
    assert!(!bad.exists());
}

// ---------------------------------------------------------------------------------------------
// bad input: nonzero exit, a clear message, no output

/// A `.npy` file with a hand-written header (version 1, 2 or 3) and `data` after it.
fn npy_with_header(d: &Dir, name: &str, version: u8, dict: &str, data: &[u8]) -> PathBuf {
    let mut v = b"\x93NUMPY".to_vec();
    v.extend_from_slice(&[version, 0]);
    let mut dict = dict.to_string();
    let prelude = if version == 1 { 10 } else { 12 };
    while !(prelude + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    if version == 1 {
        v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    } else {
        v.extend_from_slice(&(dict.len() as u32).to_le_bytes());
    }
    v.extend_from_slice(dict.as_bytes());
    v.extend_from_slice(data);
    let p = d.path(name);
    std::fs::write(&p, v).expect("write");
    p
}

#[test]
fn npy_header_versions_2_and_3() {
    let d = Dir::new();
    let data: Vec<u8> = [5u32, 3, 9].iter().flat_map(|x| x.to_le_bytes()).collect();
    for version in [1, 2, 3] {
        let input = npy_with_header(
            &d,
            &format!("v{version}.npy"),
            version,
            "{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }",
            &data,
        );
        let output = d.path("out.npy");
        ok(&["sort", s(&input), "-o", s(&output)]);
        assert_eq!(read::<u32>(&output, None), [3, 5, 9]);
    }
}

#[test]
fn bad_inputs_leave_no_output() {
    let d = Dir::new();
    let out = d.path("out.npy");
    let raw_out = d.path("out.bin");
    let check = |args: &[&str], needle: &str| {
        let err = fails(args, needle);
        assert!(
            err.starts_with("error: ") || err.contains("\nerror: ") || err.starts_with("error:"),
            "{err}"
        );
        assert!(
            !out.exists() && !raw_out.exists(),
            "output created by {args:?}"
        );
        let leftovers: Vec<_> = d
            .others(&[])
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("histosort"))
            })
            .collect();
        assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    };

    // Size not a multiple of the dtype.
    let odd = d.path("odd.bin");
    std::fs::write(&odd, [0u8; 10]).expect("write");
    check(
        &["sort", s(&odd), "--dtype", "u32", "-o", s(&raw_out)],
        "not a multiple",
    );
    check(&["hist", s(&odd), "--dtype", "u64"], "not a multiple");
    // Raw input without --dtype.
    check(&["sort", s(&odd), "-o", s(&raw_out)], "dtype");
    // Unknown dtype.
    check(
        &["sort", s(&odd), "--dtype", "u7", "-o", s(&raw_out)],
        "unknown dtype",
    );
    // Missing file.
    let missing = d.path("missing.npy");
    check(&["sort", s(&missing), "-o", s(&out)], "missing.npy");
    check(&["scan", s(&missing), "-o", s(&out)], "no such file");

    // Malformed and unsupported .npy headers.
    let words: Vec<u8> = vec![0; 24];
    let cases = [
        (
            "{'descr': '>u4', 'fortran_order': False, 'shape': (6,), }",
            "big-endian",
        ),
        (
            "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }",
            "unsupported dtype",
        ),
        (
            "{'descr': '<u4', 'fortran_order': True, 'shape': (6,), }",
            "fortran_order",
        ),
        (
            "{'descr': '<u4', 'fortran_order': False, 'shape': (3, 2), }",
            "1-D",
        ),
        (
            "{'descr': '<u4', 'fortran_order': False, 'shape': (6, 1), }",
            "(6, 1)",
        ),
        (
            "{'descr': '<u4', 'fortran_order': False, 'shape': (7,), }",
            "truncated",
        ),
        (
            "{'descr': '<u4', 'fortran_order': False, 'shape': (6,) ",
            "malformed",
        ),
        ("{'descr': '<u4', 'shape': (6,), }", "fortran_order"),
    ];
    for (i, (dict, needle)) in cases.iter().enumerate() {
        let input = npy_with_header(&d, &format!("bad{i}.npy"), 1, dict, &words);
        check(&["sort", s(&input), "-o", s(&out)], needle);
        std::fs::remove_file(&input).expect("rm");
    }
    let not_npy = d.path("text.npy");
    std::fs::write(&not_npy, "hello, world\n").expect("write");
    check(&["sort", s(&not_npy), "-o", s(&out)], "not a .npy file");
    check(&["hist", s(&not_npy)], "not a .npy file");
    let version = npy_with_header(
        &d,
        "v9.npy",
        9,
        "{'descr': '<u4', 'fortran_order': False, 'shape': (6,), }",
        &words,
    );
    check(&["sort", s(&version), "-o", s(&out)], "version 9");

    // Output equal to the input without --in-place; values file as output too.
    let keys = d.npy("keys.npy", vec![3u32, 1, 2]);
    let vals = d.npy("vals.npy", vec![1u8, 2, 3]);
    let before = std::fs::read(&keys).expect("read");
    check(&["sort", s(&keys), "-o", s(&keys)], "--in-place");
    check(&["scan", s(&keys), "-o", s(&keys)], "--in-place");
    check(
        &[
            "sort",
            s(&keys),
            "-o",
            s(&out),
            "--values",
            s(&vals),
            "--values-out",
            s(&keys),
        ],
        "--in-place",
    );
    check(
        &[
            "sort",
            s(&keys),
            "-o",
            s(&vals),
            "--values",
            s(&vals),
            "--values-out",
            s(&raw_out),
        ],
        "--in-place",
    );
    assert_eq!(std::fs::read(&keys).expect("read"), before);

    // A values output that cannot be written (its folder is missing): the keys' output is not
    // written either, so keys and values never part.
    let lost = d.path("missing-folder").join("v.npy");
    check(
        &[
            "sort",
            s(&keys),
            "-o",
            s(&out),
            "--values",
            s(&vals),
            "--values-out",
            s(&lost),
        ],
        "missing-folder",
    );

    // Values length mismatch (.npy and raw), and --values without --values-out.
    let short = d.npy("short.npy", vec![1u64, 2]);
    check(
        &[
            "sort",
            s(&keys),
            "-o",
            s(&out),
            "--values",
            s(&short),
            "--values-out",
            s(&raw_out),
        ],
        "length mismatch",
    );
    let short_raw = d.raw("short.bin", vec![1u8; 5]);
    check(
        &[
            "sort",
            s(&keys),
            "-o",
            s(&out),
            "--values",
            s(&short_raw),
            "--values-out",
            s(&raw_out),
        ],
        "length mismatch",
    );
    check(
        &["sort", s(&keys), "-o", s(&out), "--values", s(&vals)],
        "--values-out",
    );
    // No -o at all.
    check(&["sort", s(&keys)], "-o");
    // --dtype disagreeing with the .npy header.
    check(
        &["sort", s(&keys), "--dtype", "f32", "-o", s(&out)],
        "--dtype",
    );
    // u128 has no .npy form.
    let wide = d.raw("wide.bin", vec![1u128, 0]);
    check(
        &["sort", s(&wide), "--dtype", "u128", "-o", s(&out)],
        "no NumPy dtype",
    );
    check(&["hist", s(&wide), "--dtype", "u128"], "not supported");
    // An unknown backend and an unavailable one.
    check(
        &["sort", s(&keys), "-o", s(&out), "--backend", "tpu"],
        "unknown backend",
    );
}

// ---------------------------------------------------------------------------------------------
// info, validate, demo

fn has_gpu() -> bool {
    let found = histosort::Engine::new(histosort::Backend::Cuda { device: 0 }).is_ok();
    assert!(
        found || std::env::var("HISTOSORT_REQUIRE_GPU").as_deref() != Ok("1"),
        "HISTOSORT_REQUIRE_GPU=1 but the CUDA backend is unavailable"
    );
    found
}

#[test]
fn info_explains_cuda() {
    let out = ok(&["info"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cpu:"), "{text}");
    assert!(text.contains("cuda:"), "{text}");
    // The CPU's byte-histogram path, as the library detects it.
    let counter = histosort::cpu::histogram::byte_counter();
    assert!(
        text.contains(&format!("cpu:  byte histogram: {counter}\n")),
        "{text}"
    );
    if has_gpu() {
        assert!(text.contains("cuda: available"), "{text}");
    } else {
        let line = text
            .lines()
            .find(|l| l.starts_with("cuda:"))
            .unwrap_or_default();
        assert!(
            line.starts_with("cuda: unavailable: ") && line.len() > "cuda: unavailable: ".len() + 5,
            "no reason given: {text}"
        );
        assert!(text.contains("CUDA not used"), "{text}");
    }
}

#[test]
fn cuda_backend_without_gpu_is_a_clear_error() {
    if has_gpu() {
        eprintln!("skipped: a GPU is present");
        return;
    }
    let d = Dir::new();
    let keys = d.npy("k.npy", vec![2u32, 1]);
    let out = d.path("o.npy");
    fails(
        &["sort", s(&keys), "-o", s(&out), "--backend", "cuda"],
        "CUDA",
    );
    assert!(!out.exists());
}

#[test]
fn validate_quick_cpu() {
    let out = ok(&["validate", "--quick", "--backend", "cpu"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PASS  sort f32"), "{text}");
    assert!(text.contains("PASS  pairs"), "{text}");
    assert!(text.contains("PASS  hist-u8"), "{text}");
    assert!(text.contains("PASS  scan f64"), "{text}");
    assert!(text.contains(" 0 failed"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");
    // A filter that selects nothing fails instead of passing with nothing checked.
    fails(
        &[
            "validate",
            "--quick",
            "--backend",
            "cpu",
            "--filter",
            "sotr u32",
        ],
        "matches no case",
    );
}

#[test]
fn demo_small_cpu() {
    let out = ok(&["demo", "--small", "--backend", "cpu"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sort u32 keys"), "{text}");
    assert_eq!(text.matches("ok, every element").count(), 5, "{text}");
}

// ---------------------------------------------------------------------------------------------
// README

/// The README's library example is the crate docs' example (which `cargo test` runs).
#[test]
fn readme_library_example_matches_lib_docs() {
    fn first_block<'a>(lines: impl Iterator<Item = &'a str>, fence: &str) -> Vec<String> {
        lines
            .skip_while(|l| l.trim() != fence)
            .skip(1)
            .take_while(|l| l.trim() != "```")
            .map(|l| l.trim_end().to_string())
            .collect()
    }
    let readme = include_str!("../README.md");
    let lib = include_str!("../src/lib.rs");
    let docs = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l));
    let from_docs = first_block(docs, "```");
    let from_readme = first_block(readme.lines(), "```rust");
    assert!(!from_docs.is_empty(), "no example in src/lib.rs");
    assert_eq!(
        from_readme, from_docs,
        "README.md's ```rust block differs from the example in src/lib.rs's docs"
    );
    for cmd in ["cargo run --release -- demo", "cargo test --release"] {
        assert!(
            readme.contains(&format!("\n{cmd}\n")),
            "README lacks `{cmd}`"
        );
    }
}

#[test]
fn bench_replot_of_a_committed_run_and_of_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    // A results file the bench wrote on the CPU backend (one tiny suite), then read back.
    let json = dir.path().join("run.json");
    ok(&[
        "bench",
        "scan",
        "--backend",
        "cpu",
        "--quick",
        "--quiet",
        "--samples",
        "2",
        "--warmups",
        "1",
        "--sizes",
        "4096",
        "--json",
        s(&json),
    ]);
    let charts = dir.path().join("again");
    let out = ok(&[
        "bench",
        "--replot",
        s(&json),
        "--charts",
        s(&charts),
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("scan") && text.contains("GB/s"), "{text}");
    assert!(std::fs::read_dir(&charts).unwrap().count() > 0);
    fails(
        &["bench", "--replot", s(&dir.path().join("missing.json"))],
        "missing.json",
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[1, 2").unwrap();
    fails(
        &["bench", "--replot", s(&bad)],
        "not a histosort-bench report",
    );
    fails(
        &["bench", "scan", "--replot", s(&json)],
        "cannot be used with",
    );
    fails(
        &["bench", "--replot", s(&json), "--sizes", "2^20"],
        "cannot be used with",
    );
}
