//! The forger: one edit of a compiled sidecar's tables or section offsets, its digest then
//! recomputed.

use engine::sidecar::Section;
use engine::sidecar::format::{AUTOMATON_WIDTH, reseal_for_tests, section_entry_offset_for_tests};

use crate::rng::Rng;

/// The sections a forger may edit: every table, so a section added to the format is forged
/// too. Not [`Section::DfaBytes`], which holds the DFAs deserialized unchecked by design (see
/// `engine::sidecar`, "Trust").
fn tables() -> Vec<Section> {
    Section::ALL
        .into_iter()
        .filter(|section| *section != Section::DfaBytes)
        .collect()
}

/// Forge one edit into `sidecar`'s tables or section offsets, then recompute its digest.
/// `table` is where the intact file's sections lie (an earlier edit may have moved one).
/// Returns what was edited, for failure messages.
pub(crate) fn forge(rng: &mut Rng, sidecar: &mut [u8], table: &[(usize, usize)]) -> String {
    let word_at = |sidecar: &mut [u8], at: usize, value: u32| {
        sidecar[at..at + 4].copy_from_slice(&value.to_le_bytes())
    };
    let read = |sidecar: &[u8], at: usize| {
        u32::from_le_bytes([
            sidecar[at],
            sidecar[at + 1],
            sidecar[at + 2],
            sidecar[at + 3],
        ])
    };
    let what;
    if rng.one_in(8) {
        // A section's offset or length. Not those of the automaton table or the DFA bytes:
        // moving either makes other bytes be trusted as a DFA.
        let section = *rng.pick(&tables());
        let at = section_entry_offset_for_tests(section) + 4 * rng.below(2);
        let old = read(sidecar, at);
        let new = forged_value(rng, old);
        if section != Section::Automata {
            word_at(sidecar, at, new);
        }
        what = format!("section {section:?} header word {at}: {old} -> {new}");
    } else {
        let section = *rng.pick(&tables());
        let (offset, len) = table[section as usize];
        if len < 4 {
            return format!("{section:?} is empty");
        }
        if section == Section::Strings || section == Section::LiteralPrefilter {
            let at = offset + rng.below(len);
            let old = sidecar[at];
            sidecar[at] = rng.next() as u8;
            what = format!("{section:?} byte {}: {old} -> {}", at - offset, sidecar[at]);
        } else {
            let index = rng.below(len / 4);
            // An automaton record's DFA offset and length say which bytes are trusted as a
            // DFA: the forger's edit of those is an edit of DFA bytes.
            if section == Section::Automata && index % AUTOMATON_WIDTH < 2 {
                return "an automaton's DFA bytes (not forged)".into();
            }
            let at = offset + 4 * index;
            let old = read(sidecar, at);
            let new = forged_value(rng, old);
            word_at(sidecar, at, new);
            what = format!("{section:?} word {index}: {old} -> {new}");
        }
    }
    reseal_for_tests(sidecar);
    what
}

/// A forged table word: an off-by-one, a boundary, or anything.
fn forged_value(rng: &mut Rng, old: u32) -> u32 {
    match rng.below(7) {
        0 => old.wrapping_add(1),
        1 => old.wrapping_sub(1),
        2 => 0,
        3 => u32::MAX,
        4 => 1 << 31 | old,
        5 => old.wrapping_add(1 + rng.below(64) as u32),
        _ => rng.next() as u32,
    }
}
