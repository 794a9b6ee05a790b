//! Batsim's interval notation for the `allocated_resources` column of `jobs.csv` (`output.py`),
//! written for all jobs at once from flat ranges: `[0, 4) [8, 9)` -> `0-3 8`.
//!
//! Two passes over the ranges, read in place from the numpy arrays: the length of every text, then
//! the text itself, written straight into the Python bytes object (no copy of the ranges or the text).

use pyo3::buffer::{PyBuffer, ReadOnlyCell};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};

/// Decimal digits of `x` >= 0.
fn digits(mut x: i64) -> usize {
    let mut n = 1;
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n
}

/// Write `x` >= 0 in decimal at the start of `out`; returns the bytes written.
fn put(out: &mut [u8], x: i64) -> usize {
    let n = digits(x);
    let mut y = x;
    for slot in out[..n].iter_mut().rev() {
        *slot = b'0' + (y % 10) as u8;
        y /= 10;
    }
    n
}

/// Length of the text of range `[lo, hi)`: `lo` alone when it holds one id, else `lo-(hi - 1)`.
fn range_len(lo: i64, hi: i64) -> usize {
    if hi - lo == 1 {
        digits(lo)
    } else {
        digits(lo) + 1 + digits(hi - 1)
    }
}

/// Where the text of each allocation starts (n + 1 offsets): allocation r holds the ranges
/// `[lo[k], hi[k])` for k in `offsets[r]..offsets[r + 1]`, separated by one space.
pub fn starts(offsets: &[i64], lo: &[i64], hi: &[i64]) -> Vec<i64> {
    let mut out = Vec::with_capacity(offsets.len());
    let mut at = 0usize;
    out.push(0);
    for w in offsets.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        for k in a..b {
            at += range_len(lo[k], hi[k]) + usize::from(k > a);
        }
        out.push(at as i64);
    }
    out
}

/// Write the texts into `text` (exactly `starts`' last value long).
pub fn write(offsets: &[i64], lo: &[i64], hi: &[i64], text: &mut [u8]) {
    let mut at = 0usize;
    for w in offsets.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        for k in a..b {
            if k > a {
                text[at] = b' ';
                at += 1;
            }
            at += put(&mut text[at..], lo[k]);
            if hi[k] - lo[k] != 1 {
                text[at] = b'-';
                at += 1;
                at += put(&mut text[at..], hi[k] - 1);
            }
        }
    }
}

fn ints(py: Python<'_>, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<PyBuffer<i64>> {
    let buf = PyBuffer::<i64>::get(obj).map_err(|e| PyValueError::new_err(format!("column {name}: {e}")))?;
    if buf.as_slice(py).is_none() {
        return Err(PyValueError::new_err(format!("column {name}: not contiguous")));
    }
    Ok(buf)
}

fn values(cells: &[ReadOnlyCell<i64>]) -> &[i64] {
    // SAFETY: ReadOnlyCell<i64> is repr(transparent) over i64 and the buffer is not written while held.
    unsafe { std::slice::from_raw_parts(cells.as_ptr() as *const i64, cells.len()) }
}

/// The text of every allocation of flat ranges (int64 columns `offsets`, `lo`, `hi`): returns the
/// starts (native-endian int64 bytes, n + 1) and the ASCII text, allocation r being
/// `text[starts[r]..starts[r + 1]]`.
#[pyfunction]
pub fn format_ranges<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    lo: &Bound<'py, PyAny>,
    hi: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (offsets, lo, hi) = (ints(py, "offsets", offsets)?, ints(py, "lo", lo)?, ints(py, "hi", hi)?);
    let offsets = values(offsets.as_slice(py).unwrap_or_default());
    let (lo, hi) = (values(lo.as_slice(py).unwrap_or_default()), values(hi.as_slice(py).unwrap_or_default()));
    let bad = lo.len() != hi.len()
        || offsets.first() != Some(&0)
        || offsets.windows(2).any(|w| w[1] < w[0])
        || offsets.last().is_some_and(|&o| o as usize != lo.len())
        || lo.iter().zip(hi).any(|(&a, &b)| a < 0 || b <= a);
    if bad {
        return Err(PyValueError::new_err("offsets must rise from 0 to the number of ranges, 0 <= lo < hi"));
    }
    let starts = starts(offsets, lo, hi);
    let length = *starts.last().unwrap_or(&0) as usize;
    let text = PyBytes::new_with(py, length, |out| {
        write(offsets, lo, hi, out);
        Ok(())
    })?;
    // SAFETY: i64 values read as the bytes they are in memory
    let raw = unsafe { std::slice::from_raw_parts(starts.as_ptr() as *const u8, std::mem::size_of_val(&starts[..])) };
    PyTuple::new(py, [PyByteArray::new(py, raw).into_any(), text.into_any()])
}

#[cfg(test)]
mod tests {
    #[test]
    fn text() {
        let (offsets, lo, hi) = ([0, 2, 2, 3, 4], [0, 8, 5, 1000], [4, 9, 7, 1001]);
        let starts = super::starts(&offsets, &lo, &hi);
        let mut text = vec![0u8; starts[4] as usize];
        super::write(&offsets, &lo, &hi, &mut text);
        assert_eq!(std::str::from_utf8(&text).unwrap(), "0-3 85-61000");
        assert_eq!(starts, vec![0, 5, 5, 8, 12]);
    }
}
