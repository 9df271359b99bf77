//! Checked access to the verified sections: every index read from a table is bounds-checked,
//! so a forged sidecar yields [`Inconsistent`] (a deny), never a panic.

use super::*;

impl CompiledPolicy {
    pub(super) fn section(&self, section: Section) -> &[u8] {
        let (offset, len) = self.layout.sections[section as usize];
        self.bytes
            .as_bytes()
            .get(offset..offset + len)
            .unwrap_or(&[])
    }

    pub(super) fn word(&self, section: Section, index: usize) -> Checked<u32> {
        read_word(self.section(section), index)
    }

    /// How many records of a kind its section holds.
    pub(super) fn record_count<R: Record>(&self) -> usize {
        self.section(R::SECTION).len() / (R::WIDTH * 4)
    }

    /// Record `index` of the section its kind lives in.
    pub(super) fn record<R: Record>(&self, index: usize) -> Checked<R> {
        read_record(self.section(R::SECTION), index)
    }

    /// The rules a matcher's or glob's postings list, appended to `out`.
    pub(super) fn postings(&self, first: u32, count: u32, out: &mut Vec<u32>) -> Checked<()> {
        self.extend_from(Section::Postings, first, count, out)
    }

    pub(super) fn extend_from(
        &self,
        section: Section,
        first: u32,
        count: u32,
        out: &mut Vec<u32>,
    ) -> Checked<()> {
        for i in 0..count as usize {
            out.push(self.word(section, first as usize + i)?);
        }
        Ok(())
    }

    pub(super) fn bytes_at(&self, offset: u32, len: u32) -> Checked<&[u8]> {
        self.section(Section::Strings)
            .get(offset as usize..offset as usize + len as usize)
            .ok_or(Inconsistent("a string lies outside the string pool"))
    }

    pub(super) fn str(&self, offset: u32, len: u32) -> Checked<&str> {
        std::str::from_utf8(self.bytes_at(offset, len)?)
            .map_err(|_| Inconsistent("a string is not UTF-8"))
    }
}

/// How many leading entries of a table of `count` satisfy `holds` (which, on a sorted table,
/// holds for a prefix of it): a binary search through checked accessors.
pub(super) fn partition_point(
    count: usize,
    holds: impl Fn(usize) -> Checked<bool>,
) -> Checked<usize> {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = low + (high - low) / 2;
        if holds(middle)? {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    Ok(low)
}

/// Word `index` of a little-endian `u32` table.
pub(super) fn read_word(table: &[u8], index: usize) -> Checked<u32> {
    let at = index.checked_mul(4).ok_or(Inconsistent("index overflow"))?;
    table
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or(Inconsistent("an index points outside its table"))
}

/// Record `index` of `table`, a section of records of kind `R`.
pub(super) fn read_record<R: Record>(table: &[u8], index: usize) -> Checked<R> {
    let start = index
        .checked_mul(R::WIDTH * 4)
        .ok_or(Inconsistent("index overflow"))?;
    let bytes = table
        .get(start..start + R::WIDTH * 4)
        .ok_or(Inconsistent("a record index points outside its table"))?;
    let mut words = [0u32; MAX_RECORD_WIDTH];
    for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
        *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    Ok(R::from_words(&words[..R::WIDTH]))
}
