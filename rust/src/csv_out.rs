//! The rows of `jobs.csv` (`output.py`'s `write_jobs_csv`) written at compiled speed.
//!
//! Same bytes as the Arrow CSV writer it replaces where the core is built (which stays the
//! reference, tested against this on random values): integers in decimal; floats in their
//! shortest round-trip digits, laid out as Arrow's formatter does (plain decimal when the decimal
//! exponent x is -6 <= x <= 9: `0.000001`, `12.5`, `12`, `-0`; else `1e-7`, `1.5e+10`), `inf`,
//! `-inf`; NaN as an empty field; texts as given (ASCII, no quoting: the caller's texts need none).

use pyo3::buffer::{PyBuffer, ReadOnlyCell};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::fs::OpenOptions;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};

/// One column of the file.
pub enum Column<'a> {
    /// int64 values.
    Int(&'a [i64]),
    /// float64 values written as integers (all integral below 2^53), NaN as empty.
    Integral(&'a [f64]),
    /// float64 values in Arrow's shortest form, NaN as empty.
    Float(&'a [f64]),
    /// Row r is `text[starts[r]..starts[r + 1]]`.
    Text(&'a [i64], &'a [u8]),
}

/// A fixed buffer that `write!` fills: the float's text without an allocation.
struct Scratch {
    bytes: [u8; 40],
    len: usize,
}

impl std::fmt::Write for Scratch {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Append `v` in decimal.
pub fn push_int(out: &mut Vec<u8>, v: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut magnitude = v.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

/// Append `x` in Arrow's CSV form (see the module's documentation).
pub fn push_float(out: &mut Vec<u8>, x: f64) {
    if x.is_nan() {
        return;
    }
    if x.is_infinite() {
        out.extend_from_slice(if x > 0.0 { b"inf" } else { b"-inf" });
        return;
    }
    if x == x.trunc() && x.abs() < 1e9 {  // a whole number of at most 9 digits: written plainly either way
        if x == 0.0 && x.is_sign_negative() {
            out.push(b'-');
        }
        push_int(out, x as i64);
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-7", "5e0" (at most 25 bytes)
    let mut sci = Scratch { bytes: [0; 40], len: 0 };
    write!(sci, "{x:e}").unwrap();
    let sci = &sci.bytes[..sci.len];
    let e = sci.iter().position(|&b| b == b'e').unwrap_or(sci.len());
    let exponent: i32 = std::str::from_utf8(&sci[e + 1..]).ok().and_then(|t| t.parse().ok()).unwrap_or(0);
    let negative = sci[0] == b'-';
    let mut digits = [0u8; 24];
    let mut n = 0;
    for &b in &sci[..e] {
        if b.is_ascii_digit() {
            digits[n] = b;
            n += 1;
        }
    }
    let digits = &digits[..n];
    if negative {
        out.push(b'-');
    }
    if (-6..=9).contains(&exponent) {
        if exponent < 0 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-exponent - 1) as usize));
            out.extend_from_slice(digits);
        } else {
            let point = exponent as usize + 1;
            if digits.len() <= point {
                out.extend_from_slice(digits);
                out.extend(std::iter::repeat_n(b'0', point - digits.len()));
            } else {
                out.extend_from_slice(&digits[..point]);
                out.push(b'.');
                out.extend_from_slice(&digits[point..]);
            }
        }
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exponent > 0 { b'+' } else { b'-' });
        push_int(out, exponent.abs() as i64);
    }
}

/// Append row `r` of every column, comma-separated, and a newline.
pub fn push_row(out: &mut Vec<u8>, columns: &[Column], r: usize) {
    for (k, column) in columns.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        match column {
            Column::Int(v) => push_int(out, v[r]),
            Column::Integral(v) => {
                if !v[r].is_nan() {
                    push_int(out, v[r] as i64);
                }
            }
            Column::Float(v) => push_float(out, v[r]),
            Column::Text(starts, text) => out.extend_from_slice(&text[starts[r] as usize..starts[r + 1] as usize]),
        }
    }
    out.push(b'\n');
}

fn cells<'py, T: pyo3::buffer::Element>(py: Python<'py>, buffer: &'py PyBuffer<T>) -> PyResult<&'py [T]> {
    let cells: &[ReadOnlyCell<T>] =
        buffer.as_slice(py).ok_or_else(|| PyValueError::new_err("a column is not contiguous"))?;
    // SAFETY: ReadOnlyCell<T> is repr(transparent) over T and the buffer is not written while held.
    Ok(unsafe { std::slice::from_raw_parts(cells.as_ptr() as *const T, cells.len()) })
}

/// Append `n` rows to the file at `path`: `columns` is a list of `(kind, values[, text])` with kind
/// `int` (int64), `integral` or `float` (float64) or `text` (int64 starts, n + 1, and ASCII bytes).
#[pyfunction]
pub fn append_csv_rows(py: Python<'_>, path: &str, n: usize, columns: &Bound<'_, PyList>) -> PyResult<()> {
    let mut kinds = Vec::new();
    let (mut ints, mut floats) = (Vec::new(), Vec::new());
    let mut texts: Vec<PyBuffer<u8>> = Vec::new();
    for item in columns.iter() {
        let item = item.downcast::<PyTuple>()?;
        let kind: String = item.get_item(0)?.extract()?;
        match kind.as_str() {
            "int" | "text" => ints.push(PyBuffer::<i64>::get(&item.get_item(1)?)?),
            "integral" | "float" => floats.push(PyBuffer::<f64>::get(&item.get_item(1)?)?),
            _ => return Err(PyValueError::new_err(format!("unknown column kind {kind}"))),
        }
        if kind == "text" {
            texts.push(PyBuffer::<u8>::get(&item.get_item(2)?)?);
        }
        kinds.push(kind);
    }
    let (mut i, mut f, mut t) = (0, 0, 0);
    let mut table = Vec::with_capacity(kinds.len());
    for kind in &kinds {
        let column = match kind.as_str() {
            "int" => Column::Int(cells(py, &ints[i])?),
            "integral" => Column::Integral(cells(py, &floats[f])?),
            "float" => Column::Float(cells(py, &floats[f])?),
            _ => {
                let starts = cells(py, &ints[i])?;
                let text = cells(py, &texts[t])?;
                if starts.len() != n + 1 || starts.windows(2).any(|w| w[1] < w[0]) || starts[n] as usize > text.len() {
                    return Err(PyValueError::new_err("text starts must rise within the text"));
                }
                t += 1;
                Column::Text(starts, text)
            }
        };
        match kind.as_str() {
            "int" | "text" => i += 1,
            _ => f += 1,
        }
        let rows = match &column {
            Column::Int(v) => v.len(),
            Column::Integral(v) | Column::Float(v) => v.len(),
            Column::Text(starts, _) => starts.len() - 1,
        };
        if rows != n {
            return Err(PyValueError::new_err(format!("a column has {rows} rows, expected {n}")));
        }
        table.push(column);
    }
    let file = OpenOptions::new().append(true).open(path)?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    let mut line = Vec::with_capacity(256);
    for r in 0..n {
        line.clear();
        push_row(&mut line, &table, r);
        writer.write_all(&line)?;
    }
    writer.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    fn text(x: f64) -> String {
        let mut out = Vec::new();
        super::push_float(&mut out, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn integers() {
        for v in [0, 7, -7, 10, 1234567890123, i64::MIN, i64::MAX] {
            let mut out = Vec::new();
            super::push_int(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), v.to_string());
        }
    }

    #[test]
    fn arrow_layout() {
        let cases = [
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1e-6, "0.000001"),
            (1.25e-6, "0.00000125"),
            (0.30000000000000004, "0.30000000000000004"),
            (12.0, "12"),
            (12.5, "12.5"),
            (-0.0, "-0"),
            (-2.5, "-2.5"),
            (1e9, "1000000000"),
            (999999999.5, "999999999.5"),
            (1e10, "1e+10"),
            (12345678901.5, "1.23456789015e+10"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::INFINITY, "inf"),
            (-123456789.0, "-123456789"),
            (100.0, "100"),
            (0.0, "0"),
            (f64::NAN, ""),
        ];
        for (x, expected) in cases {
            assert_eq!(text(x), expected, "{x:e}");
        }
    }
}
