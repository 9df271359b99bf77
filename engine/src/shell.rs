//! The shell parser and normaliser (the `shell` crate, `animus-shell`), as the engine's rules
//! see it, and the per-call cache of analyses and of the path and domain views drawn from them.

pub use ::shell::*;

use std::cell::RefCell;
use std::rc::Rc;

/// A remembered analysis: its text, its places (cwd, home, project root) and the analysis.
type Remembered = Option<(String, [Option<String>; 3], Rc<Analysis>)>;

thread_local! {
    /// The last analysis made ([`analyse_shared`]): the policy's rules and the guard read the
    /// same command of one call, and the parse is a third of a decide.
    static LAST: RefCell<Remembered> = const { RefCell::new(None) };
}

/// [`analyse_in`] of `text` in `places`, remembered for the next call with the same text and
/// places on this thread (one entry: an analysis depends on nothing else, so a repeated one is
/// the same value).
pub fn analyse_shared(text: &str, places: crate::paths::Places<'_>) -> Rc<Analysis> {
    let key = [places.cwd, places.home, places.project_root];
    LAST.with(|last| {
        if let Some((t, k, analysis)) = &*last.borrow()
            && t == text
            && k.iter().map(Option::as_deref).eq(key)
        {
            return Rc::clone(analysis);
        }
        let analysis = Rc::new(analyse_in(text, places));
        *last.borrow_mut() = Some((
            text.to_string(),
            key.map(|k| k.map(String::from)),
            Rc::clone(&analysis),
        ));
        analysis
    })
}

/// Forget the analysis [`analyse_shared`] remembers on this thread: a benchmark deciding one
/// command again and again calls this each time, so it measures a fresh call's parse (an emit
/// parses its command once) rather than the memo.
pub fn forget_shared() {
    LAST.with(|last| last.borrow_mut().take());
}

/// Analyses of the texts of one call, each computed once (a command field is looked at by
/// deny, author and allow matchers alike).
#[derive(Default)]
pub struct AnalysisCache<'p> {
    /// Where the call happens: deletion targets are resolved there.
    places: crate::paths::Places<'p>,
    entries: Vec<(String, Rc<Analysis>)>,
    /// Texts of the path and domain views, per view and field text.
    views: Vec<(crate::policy::MatchOn, String, Vec<String>)>,
}

impl<'p> AnalysisCache<'p> {
    /// A cache for one call made in `places`.
    pub fn new(places: crate::paths::Places<'p>) -> Self {
        AnalysisCache {
            places,
            ..AnalysisCache::default()
        }
    }

    /// The texts a path or domain view offers for `text` ([`crate::paths::path_texts`],
    /// [`crate::paths::command_path_texts`], [`crate::web::host_texts`]), made once per call:
    /// they cost system calls (symlinks are resolved). Other views offer none.
    pub fn view_texts(
        &mut self,
        view: crate::policy::MatchOn,
        text: &str,
        places: crate::paths::Places<'_>,
    ) -> &[String] {
        use crate::paths::{self, Spellings};
        use crate::policy::MatchOn;
        if let Some(i) = self
            .views
            .iter()
            .position(|(v, t, _)| *v == view && t == text)
        {
            return &self.views[i].2;
        }
        let texts = match view {
            MatchOn::Path => paths::path_texts(text, places, Spellings::All),
            MatchOn::ResolvedPath => paths::path_texts(text, places, Spellings::Resolved),
            MatchOn::CommandPath => {
                paths::command_path_texts(self.get(text).path_read_texts(text), places)
            }
            MatchOn::Domain | MatchOn::ExactDomain => crate::web::host_texts(text),
            MatchOn::Name => crate::semantics::name_texts(text),
            _ => Vec::new(),
        };
        self.views.push((view, text.to_string(), texts));
        &self.views[self.views.len() - 1].2
    }

    /// The analysis of `text`.
    pub fn get(&mut self, text: &str) -> &Analysis {
        let index = match self.entries.iter().position(|(t, _)| t == text) {
            Some(i) => i,
            None => {
                self.entries
                    .push((text.to_string(), analyse_shared(text, self.places)));
                self.entries.len() - 1
            }
        };
        &self.entries[index].1
    }
}
