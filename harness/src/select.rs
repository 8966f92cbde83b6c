//! Which checks a run runs: `--select`/`--skip` (an id prefix of whole segments, or a cited
//! requirement or policy id; see [`Check::matches`]) and `--shard I/N`.
//!
//! Sharding is deterministic: the selected ids are sorted, and shard `I` of `N` takes every
//! `N`th of them starting at the `I`th (round robin). N jobs given the same selection and the
//! same mcpspec version therefore run every selected check exactly once, and shards differ in
//! size by at most one check.

use std::fmt;
use std::str::FromStr;

use crate::check::Check;

/// `--shard I/N`: the I-th (1-based) of N shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// A `--shard` value that is not `I/N` with `1 <= I <= N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard {0:?}: expected I/N with 1 <= I <= N (e.g. 2/4)")]
pub struct ShardError(String);

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ShardError(s.to_owned());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A selection: patterns to keep, patterns to leave out, and a shard.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub select: Vec<String>,
    pub skip: Vec<String>,
    pub shard: Option<Shard>,
}

impl Selection {
    /// The checks of `catalogue` this selection runs, in catalogue order.
    pub fn apply(&self, catalogue: &[Check]) -> Vec<Check> {
        let selected: Vec<Check> = catalogue
            .iter()
            .filter(|c| self.select.is_empty() || self.select.iter().any(|p| c.matches(p)))
            .filter(|c| !self.skip.iter().any(|p| c.matches(p)))
            .copied()
            .collect();
        let Some(shard) = self.shard else {
            return selected;
        };
        let mut ids: Vec<&str> = selected.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        let mine: Vec<&str> = ids
            .into_iter()
            .enumerate()
            .filter(|(n, _)| n % shard.count == shard.index - 1)
            .map(|(_, id)| id)
            .collect();
        selected
            .iter()
            .filter(|c| mine.contains(&c.id))
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::catalogue;

    #[test]
    fn shard_parses_and_rejects() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(
            "1/1".parse::<Shard>().map(|s| s.to_string()),
            Ok("1/1".into())
        );
        for bad in ["0/3", "4/3", "1/0", "1", "a/b", "1/2/3", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_cover_the_catalogue_exactly_once() {
        let all = catalogue::all();
        for count in 1..=5 {
            let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
            let mut sizes = Vec::new();
            for index in 1..=count {
                let selection = Selection {
                    shard: Some(Shard { index, count }),
                    ..Selection::default()
                };
                let part = selection.apply(&all);
                sizes.push(part.len());
                for c in part {
                    *seen.entry(c.id).or_default() += 1;
                }
            }
            assert_eq!(seen.len(), all.len(), "N={count}: every check runs");
            assert!(seen.values().all(|&n| n == 1), "N={count}: exactly once");
            let (min, max) = (sizes.iter().min(), sizes.iter().max());
            assert!(max.zip(min).is_some_and(|(a, b)| a - b <= 1), "{sizes:?}");
        }
    }

    #[test]
    fn shards_are_deterministic_and_respect_the_selection() {
        let all = catalogue::all();
        let selection = Selection {
            select: vec!["jsonrpc".into()],
            shard: Some(Shard { index: 1, count: 2 }),
            ..Selection::default()
        };
        let a: Vec<_> = selection.apply(&all).iter().map(|c| c.id).collect();
        let b: Vec<_> = selection.apply(&all).iter().map(|c| c.id).collect();
        assert_eq!(a, b);
        assert!(!a.is_empty() && a.iter().all(|id| id.starts_with("jsonrpc/")));
    }

    #[test]
    fn select_and_skip_by_prefix_and_requirement() {
        let all = catalogue::all();
        let by_req = Selection {
            select: vec!["RPC-6".into()],
            ..Selection::default()
        }
        .apply(&all);
        assert!(by_req.iter().all(|c| c.requirements.contains(&"RPC-6")));
        assert!(!by_req.is_empty());
        let skipped = Selection {
            skip: vec!["jsonrpc".into()],
            ..Selection::default()
        }
        .apply(&all);
        assert!(skipped.iter().all(|c| !c.id.starts_with("jsonrpc/")));
        assert!(skipped.len() < all.len());
    }
}
