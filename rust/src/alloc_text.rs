//! Batsim's interval notation for the `allocated_resources` column of `jobs.csv` (`output.py`),
//! written for all jobs at once from flat ranges: `[0, 4) [8, 9)` -> `0-3 8`.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyTuple};
use std::fmt::Write;

/// The text of every allocation, concatenated, and where each starts: allocation r holds the ranges
/// `[lo[k], hi[k])` for k in `offsets[r]..offsets[r + 1]`; its text is `text[starts[r]..starts[r + 1]]`.
pub fn format(offsets: &[i64], lo: &[i64], hi: &[i64]) -> (Vec<i64>, String) {
    let mut text = String::with_capacity(lo.len() * 10);
    let mut starts = Vec::with_capacity(offsets.len());
    starts.push(0);
    for w in offsets.windows(2) {
        for k in w[0] as usize..w[1] as usize {
            if k > w[0] as usize {
                text.push(' ');
            }
            if hi[k] - lo[k] == 1 {
                write!(text, "{}", lo[k]).unwrap();
            } else {
                write!(text, "{}-{}", lo[k], hi[k] - 1).unwrap();
            }
        }
        starts.push(text.len() as i64);
    }
    (starts, text)
}

fn ints(py: Python<'_>, name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    let buf = PyBuffer::<i64>::get(obj).map_err(|e| PyValueError::new_err(format!("column {name}: {e}")))?;
    buf.to_vec(py)
}

/// `format` for Python: int64 columns in; the starts (native-endian int64 bytes) and the ASCII text out.
#[pyfunction]
pub fn format_ranges<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    lo: &Bound<'py, PyAny>,
    hi: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (offsets, lo, hi) = (ints(py, "offsets", offsets)?, ints(py, "lo", lo)?, ints(py, "hi", hi)?);
    let bad = lo.len() != hi.len()
        || offsets.first() != Some(&0)
        || offsets.windows(2).any(|w| w[1] < w[0])
        || offsets.last().is_some_and(|&o| o as usize != lo.len());
    if bad {
        return Err(PyValueError::new_err("offsets must rise from 0 to the number of ranges"));
    }
    let (starts, text) = py.allow_threads(|| format(&offsets, &lo, &hi));
    // SAFETY: i64 values read as the bytes they are in memory
    let raw = unsafe { std::slice::from_raw_parts(starts.as_ptr() as *const u8, std::mem::size_of_val(&starts[..])) };
    PyTuple::new(py, [PyByteArray::new(py, raw).into_any(), PyBytes::new(py, text.as_bytes()).into_any()])
}

#[cfg(test)]
mod tests {
    #[test]
    fn text() {
        let (starts, text) = super::format(&[0, 2, 2, 3], &[0, 8, 5], &[4, 9, 7]);
        assert_eq!(text, "0-3 85-6");
        assert_eq!(starts, vec![0, 5, 5, 8]);
    }
}
