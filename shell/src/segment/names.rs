//! A fixed set of program names asked about many times per command ([`NameSet`]).

/// A fixed set of names (programs, wrappers, shells), asked about for nearly every word that
/// could be a program: two tables of the lengths the names of each first and each last byte
/// have answer most names outside the set without comparing a string (a slice's `contains` or a binary search
/// compares one through `memcmp` per step: a quarter of the analysis' time before).
pub(crate) struct NameSet {
    names: &'static [&'static str],
    /// For each first byte, bit `n` is set when some name of that byte is `n` bytes long
    /// (bit 63: 63 or more).
    lengths_by_first: [u64; 256],
    /// The same for each last byte.
    lengths_by_last: [u64; 256],
}

impl NameSet {
    pub(crate) const fn new(names: &'static [&'static str]) -> NameSet {
        let mut lengths_by_first = [0u64; 256];
        let mut lengths_by_last = [0u64; 256];
        let mut i = 0;
        while i < names.len() {
            let bytes = names[i].as_bytes();
            if !bytes.is_empty() {
                lengths_by_first[bytes[0] as usize] |= length_bit(bytes.len());
                lengths_by_last[bytes[bytes.len() - 1] as usize] |= length_bit(bytes.len());
            }
            i += 1;
        }
        NameSet {
            names,
            lengths_by_first,
            lengths_by_last,
        }
    }

    /// Is `name` one of the set's names?
    #[inline]
    pub(crate) fn contains(&self, name: &str) -> bool {
        let bytes = name.as_bytes();
        match (bytes.first(), bytes.last()) {
            (Some(&first), Some(&last)) => {
                let length = length_bit(bytes.len());
                self.lengths_by_first[first as usize] & length != 0
                    && self.lengths_by_last[last as usize] & length != 0
                    && self.names.contains(&name)
            }
            _ => self.names.contains(&name),
        }
    }

    /// The names, in the order given.
    #[cfg(test)]
    pub(crate) fn names(&self) -> &'static [&'static str] {
        self.names
    }
}

const fn length_bit(length: usize) -> u64 {
    1 << if length < 63 { length } else { 63 }
}

#[cfg(test)]
mod tests {
    use super::NameSet;

    /// The set answers exactly as the list's `contains`: its names, names one byte off in
    /// length or first byte, prefixes and extensions of them, long names, the empty name.
    #[test]
    fn answers_as_the_list_does() {
        let long: &'static str = Box::leak("a".repeat(70).into_boxed_str());
        let names: &'static [&'static str] = Box::leak(
            vec!["sh", "bash", "busybox", "env", "", "x", "long-name", long].into_boxed_slice(),
        );
        let set = NameSet::new(names);
        let mut probes: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        for n in names {
            probes.push(format!("{n}x"));
            probes.push(format!("x{n}"));
            if let Some(shorter) = n.get(..n.len().saturating_sub(1)) {
                probes.push(shorter.to_string());
            }
            probes.push(n.to_uppercase());
        }
        probes.extend(["a".repeat(69), "a".repeat(71), "zsh".into(), "é".into()]);
        for probe in &probes {
            assert_eq!(
                set.contains(probe),
                names.contains(&probe.as_str()),
                "{probe:?}"
            );
        }
    }
}
