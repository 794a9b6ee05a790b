//! The job lines of an SWF trace (`workload/swf.py`'s `read_swf`) parsed at compiled speed.
//!
//! Same rules as the Python reader there, which stays the reference (tests compare both on every
//! trace and on quirky files): lines end at `\n`; blanks are ` \t\r\x0b\x0c`; a line whose first
//! non-blank byte is `;` is a comment, a blank line is skipped, any other line is a job line whose
//! text after a `;` is a comment and which must hold exactly 18 tokens, each a decimal number
//! (`[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?`). Every value is read as the nearest float64; fields of
//! the integer kind must then be integral and below 2^63 in magnitude, the others finite. The first
//! malformed line in file order wins over any bad value; among bad values the lowest field, then
//! the first line, is reported (the Python reader's order). Cost: one pass over the bytes.

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};

/// Number of SWF fields.
pub const N_FIELDS: usize = 18;

/// Fields read as float64 (times and memory, 0-based: 1, 2, 3, 5, 6, 8, 9, 17); the others are int64.
pub const IS_FLOAT: [bool; N_FIELDS] = [
    false, true, true, true, false, true, true, false, true, true, false, false, false, false, false, false, false, true,
];

/// 2^63: integer fields must be below it in magnitude.
const INT64_LIMIT: f64 = (1u64 << 63) as f64;

/// Why the text cannot be read.
#[derive(Debug, PartialEq)]
pub enum SwfError {
    /// A job line that does not hold 18 numbers: its 1-based number and byte span.
    Line { number: usize, start: usize, end: usize },
    /// A number that is not of its field's kind: line number, 0-based field, token's byte span.
    Value { number: usize, field: usize, start: usize, end: usize },
}

/// The columns of the job lines, row per job in file order.
#[derive(Debug, Default)]
pub struct Swf {
    pub floats: Vec<Vec<f64>>,
    pub ints: Vec<Vec<i64>>,
    pub lines: Vec<i64>,
    /// Byte spans of the comment lines (first non-blank byte `;`), for the header.
    pub comments: Vec<i64>,
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Whether `t` is a number of the reader's grammar.
fn is_number(t: &[u8]) -> bool {
    let mut i = 0;
    if i < t.len() && (t[i] == b'+' || t[i] == b'-') {
        i += 1;
    }
    let int_digits = t[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if i < t.len() && t[i] == b'.' {
        i += 1;
        frac_digits = t[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        i += 1;
        if i < t.len() && (t[i] == b'+' || t[i] == b'-') {
            i += 1;
        }
        let exp_digits = t[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if exp_digits == 0 {
            return false;
        }
        i += exp_digits;
    }
    i == t.len()
}

/// The nearest float64 of a token of the grammar (plain integers of up to 15 digits directly).
fn value(t: &[u8]) -> f64 {
    let (negative, digits) = match t[0] {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
        let x = digits.iter().fold(0i64, |acc, &d| acc * 10 + (d - b'0') as i64) as f64;
        return if negative { -x } else { x };
    }
    // SAFETY-free: the grammar admits ASCII only, which is valid UTF-8
    std::str::from_utf8(t).ok().and_then(|s| s.parse::<f64>().ok()).unwrap_or(f64::NAN)
}

/// One token: its value when it is a number of the grammar, else None. Plain integers of up to 15
/// digits (every SWF value in practice) are read in the same pass as they are scanned.
fn token_value(t: &[u8]) -> Option<f64> {
    let (negative, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if !digits.is_empty() && digits.len() <= 15 {
        let mut x = 0i64;
        let mut plain = true;
        for &d in digits {
            if !d.is_ascii_digit() {
                plain = false;
                break;
            }
            x = x * 10 + (d - b'0') as i64;
        }
        if plain {
            let x = x as f64;
            return Some(if negative { -x } else { x });
        }
    }
    if is_number(t) {
        Some(value(t))
    } else {
        None
    }
}

/// Parse the whole text of an SWF file (already decompressed).
pub fn parse(data: &[u8]) -> Result<Swf, SwfError> {
    let rows = data.iter().filter(|&&b| b == b'\n').count() + 1; // at most one job per line
    let mut out = Swf {
        floats: (0..N_FIELDS).filter(|&k| IS_FLOAT[k]).map(|_| Vec::with_capacity(rows)).collect(),
        ints: (0..N_FIELDS).filter(|&k| !IS_FLOAT[k]).map(|_| Vec::with_capacity(rows)).collect(),
        lines: Vec::with_capacity(rows),
        comments: Vec::new(),
    };
    // per field, the first bad value: (line number, token span)
    let mut first_bad: [Option<(usize, usize, usize)>; N_FIELDS] = [None; N_FIELDS];
    let mut values = [0f64; N_FIELDS];
    let mut spans = [(0usize, 0usize); N_FIELDS];
    let mut start = 0;
    let mut number = 0;
    while start < data.len() {
        number += 1;
        let end = memchr_newline(data, start);
        let mut i = start;
        while i < end && is_blank(data[i]) {
            i += 1;
        }
        if i < end && data[i] == b';' {
            out.comments.push(start as i64);
            out.comments.push(end as i64);
        } else if i < end {
            let mut count = 0;
            let mut ok = true;
            while i < end && data[i] != b';' {
                let t0 = i;
                while i < end && !is_blank(data[i]) && data[i] != b';' {
                    i += 1;
                }
                if count < N_FIELDS {
                    match token_value(&data[t0..i]) {
                        Some(x) => values[count] = x,
                        None => ok = false,
                    }
                    spans[count] = (t0, i);
                }
                count += 1;
                while i < end && is_blank(data[i]) {
                    i += 1;
                }
            }
            if count != N_FIELDS || !ok {
                return Err(SwfError::Line { number, start, end });
            }
            let (mut f, mut n) = (0, 0);
            for (k, &x) in values.iter().enumerate() {
                if IS_FLOAT[k] {
                    if !x.is_finite() && first_bad[k].is_none() {
                        first_bad[k] = Some((number, spans[k].0, spans[k].1));
                    }
                    out.floats[f].push(x);
                    f += 1;
                } else {
                    let integral = x.floor() == x && x.abs() < INT64_LIMIT;
                    if !integral && first_bad[k].is_none() {
                        first_bad[k] = Some((number, spans[k].0, spans[k].1));
                    }
                    out.ints[n].push(if integral { x as i64 } else { 0 });
                    n += 1;
                }
            }
            out.lines.push(number as i64);
        }
        start = end + 1;
    }
    if let Some((field, &Some((number, start, end)))) = first_bad.iter().enumerate().find(|(_, bad)| bad.is_some()) {
        return Err(SwfError::Value { number, field, start, end });
    }
    Ok(out)
}

fn memchr_newline(data: &[u8], from: usize) -> usize {
    data[from..].iter().position(|&b| b == b'\n').map_or(data.len(), |p| from + p)
}

fn bytearray<'py, T: Copy>(py: Python<'py>, data: &[T]) -> Bound<'py, PyByteArray> {
    // SAFETY: T is f64 or i64; its bytes are read as they lie in memory.
    let raw = unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) };
    PyByteArray::new(py, raw)
}

/// Parse the text of an SWF file: `(columns, lines, comments, None)` with the 18 columns in field
/// order (native-endian float64 or int64 bytes, writable), the 1-based line of each job and the
/// (start, end) byte spans of the comment lines (int64); or `(None, None, None, error)` with error
/// `("line", number, start, end)` for a line that is not 18 numbers, or `("value", number, field,
/// token)` for a number not of its field's kind (field 0-based).
#[pyfunction]
pub fn parse_swf<'py>(py: Python<'py>, data: &Bound<'py, PyBytes>) -> PyResult<Bound<'py, PyTuple>> {
    let text = data.as_bytes();
    let parsed = py.allow_threads(|| parse(text));
    match parsed {
        Ok(swf) => {
            // each column is dropped as soon as Python has its copy: one column at a time in two places
            let (mut floats, mut ints) = (swf.floats.into_iter(), swf.ints.into_iter());
            let mut columns = Vec::with_capacity(N_FIELDS);
            for &float in IS_FLOAT.iter() {
                let column = if float {
                    bytearray(py, &floats.next().unwrap_or_default())
                } else {
                    bytearray(py, &ints.next().unwrap_or_default())
                };
                columns.push(column);
            }
            let columns = PyTuple::new(py, columns)?;
            (columns, bytearray(py, &swf.lines), bytearray(py, &swf.comments), py.None()).into_pyobject(py)
        }
        Err(SwfError::Line { number, start, end }) => {
            (py.None(), py.None(), py.None(), ("line", number, start, end)).into_pyobject(py)
        }
        Err(SwfError::Value { number, field, start, end }) => {
            let token = PyBytes::new(py, &text[start..end]);
            (py.None(), py.None(), py.None(), ("value", number, field, token)).into_pyobject(py)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        for good in ["1", "-1", "+5", "5.", ".5", "1e3", "1E+05", "2.5e-3", "007"] {
            assert!(is_number(good.as_bytes()), "{good}");
        }
        for bad in ["", "+", ".", "e5", "1e", "1e+", "inf", "nan", "1-2", "0x10", "1..2", "--1"] {
            assert!(!is_number(bad.as_bytes()), "{bad}");
        }
        assert_eq!(value(b"5."), 5.0);
        assert_eq!(value(b".5"), 0.5);
        assert_eq!(value(b"-0012"), -12.0);
        assert!(value(b"1e999").is_infinite());
    }
}
