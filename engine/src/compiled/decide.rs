//! Deciding one call: the tool's globs, each field's texts searched, the rules that fire, and
//! the fold ([`semantics::fold_rules`]) into an [`Outcome`].

use super::*;

/// A fired rule: its decision from the sidecar, its id and reason from the JSON (borrowed from
/// the mapped file unless the JSON escapes a character in them).
pub(super) struct FiredRule<'a> {
    decision: Decision,
    id: Cow<'a, str>,
    reason: Cow<'a, str>,
}

crate::semantics::rule_view!(FiredRule<'_>);

impl CompiledPolicy {
    /// Decide `call`. Never panics: a table inconsistency (possible only in a forged sidecar
    /// that still passes the digest) yields a deny naming the problem.
    pub fn decide(&self, call: Call<'_>) -> Outcome {
        self.try_decide(call)
            .unwrap_or_else(|Inconsistent(what)| Outcome {
                decision: Decision::Deny,
                reason: format!(
                    "animus-hook cannot evaluate this policy: the compiled sidecar is inconsistent \
                 ({what}); run `animus-hook compile` again"
                ),
                deciding_rule: None,
                matched: Vec::new(),
            })
    }

    pub(super) fn try_decide(&self, call: Call<'_>) -> Checked<Outcome> {
        let event_bit = semantics::event_bit(call.event);
        let dfas = Dfas::default();
        let globs = self.tool_globs(&dfas, call.tool_name)?;
        let mut matchers = Vec::new();
        let mut analyses = shell::AnalysisCache::new(call.places);
        let cover_fields = self.match_fields(&dfas, call, &mut analyses, &mut matchers)?;
        let mut fired = self.fired_rules(&matchers, &globs, event_bit)?;

        // Coverage decides only when no deny or ask rule fired (deny > ask > allow): then, and
        // only then, the `covers` rules are evaluated, segment by segment.
        let mut restricted = false;
        for &index in &fired {
            let rule = self.record::<RuleRecord>(index as usize)?;
            let decision = Decision::ALL.get(rule.decision_code() as usize);
            restricted |= matches!(decision, Some(Decision::Deny | Decision::Ask));
        }
        if !restricted {
            let mut covering = Vec::new();
            for (field_id, field, command) in cover_fields {
                let analysis = analyses.get(command);
                self.covering_rules(
                    &dfas,
                    field_id,
                    &field,
                    analysis,
                    (event_bit, &globs),
                    &mut covering,
                )?;
            }
            fired.extend(covering);
        }

        let views = self.fired_views(fired)?;
        let outcome =
            semantics::read_only_default(semantics::fold_rules(self.default_decision, views), call);
        if outcome.decision >= Decision::Ask {
            return Ok(outcome);
        }
        match self.governing_rule(call, event_bit, &globs, &mut analyses)? {
            Some((index, why)) => {
                let rule = self.record::<RuleRecord>(index as usize)?;
                let id = self
                    .json
                    .as_bytes()
                    .get(rule.id_offset as usize..(rule.id_offset + rule.id_len) as usize)
                    .and_then(json_string)
                    .ok_or(Inconsistent(
                        "a rule's id is not a string of the policy JSON",
                    ))?;
                Ok(semantics::at_least_ask(outcome, &why, &id))
            }
            None => Ok(outcome),
        }
    }

    /// The tool globs `tool_name` matches, sorted: exact names, prefixes, then automata.
    fn tool_globs<'p>(&'p self, dfas: &Dfas<'p>, tool_name: &str) -> Checked<Vec<u32>> {
        let mut globs = Vec::new();
        self.exact_tool(tool_name, &mut globs)?;
        self.tool_prefixes(tool_name, &mut globs)?;
        let (tool_first, tool_count) = self.tool_automata;
        for i in 0..tool_count {
            let automaton = self.word(Section::AutomatonLists, tool_first + i)?;
            self.run_automaton(dfas, automaton, tool_name, Some(0), &mut globs)?;
        }
        globs.sort_unstable();
        globs.dedup();
        Ok(globs)
    }

    /// Every matcher the call's fields match, sorted, into `matchers`; the fields read as
    /// `covers` are returned instead, decided later ([`Self::covering_rules`]).
    fn match_fields<'c, 'p>(
        &'p self,
        dfas: &Dfas<'p>,
        call: Call<'c>,
        analyses: &mut shell::AnalysisCache<'_>,
        matchers: &mut Vec<u32>,
    ) -> Checked<Vec<(u32, FieldRecord, &'c str)>> {
        let mut cover_fields = Vec::new();
        // One buffer for every anchored segment text of the call.
        let mut anchored = String::new();
        for field_id in 0..self.field_count {
            let field = self.record::<FieldRecord>(field_id)?;
            let path = self.str(field.path_offset, field.path_len)?;
            let view = view_of_code(field.view_code())
                .ok_or(Inconsistent("a field's view is not a view"))?;
            let Some(value) = semantics::lookup(call.tool_input, path) else {
                continue;
            };
            if view == MatchOn::Cover {
                // Decided after the other rules: coverage only matters when nothing denies
                // or asks.
                if let serde_json::Value::String(command) = value {
                    cover_fields.push((field_id as u32, field, command.as_str()));
                }
                continue;
            }
            let mut failure = None;
            semantics::any_text(value, &mut |text| {
                let id = field_id as u32;
                let result = match view {
                    MatchOn::Text => self.match_field(dfas, id, &field, text, matchers),
                    MatchOn::TextAndSegments => self
                        .match_field(dfas, id, &field, text, matchers)
                        .and_then(|()| {
                            analyses.get(text).generous_texts().try_for_each(|segment| {
                                self.match_field(dfas, id, &field, segment, matchers)
                            })
                        }),
                    // A command's path texts are matched as they are made, none kept (the
                    // same texts as the reference evaluator's, `paths::command_path_texts`).
                    MatchOn::CommandPath => match self.start_anchored_automata(&field) {
                        Err(e) => Err(e),
                        // A field searched from each text's start: the words below a
                        // directory resume from the state its prefix leads to.
                        Ok(Some(automata)) => {
                            let mut sink = automata.matching_into(matchers);
                            let _ = paths::each_command_path_text_into(
                                analyses.get(text).path_read_texts(text),
                                call.places,
                                field.path_tags(),
                                &mut sink,
                            );
                            sink.finish()
                        }
                        Ok(None) => {
                            let analysis = analyses.get(text);
                            let mut failed = None;
                            // Only the texts behind the tags of the field's matchers: a text
                            // behind another tag matches none of them (`paths::TagSet`).
                            let _ = paths::each_command_path_text_for(
                                analysis.path_read_texts(text),
                                call.places,
                                field.path_tags(),
                                &mut |t| match self.match_field(dfas, id, &field, t, matchers) {
                                    Ok(()) => ControlFlow::Continue(()),
                                    Err(e) => {
                                        failed = Some(e);
                                        ControlFlow::Break(())
                                    }
                                },
                            );
                            failed.map_or(Ok(()), Err)
                        }
                    },
                    // Path, domain and name views: their texts as the reference evaluator
                    // makes them (`shell::AnalysisCache::view_texts`, the one definition).
                    MatchOn::Path
                    | MatchOn::ResolvedPath
                    | MatchOn::Name
                    | MatchOn::Domain
                    | MatchOn::ExactDomain => analyses
                        .view_texts(view, text, call.places)
                        .iter()
                        .try_for_each(|t| self.match_field(dfas, id, &field, t, matchers)),
                    MatchOn::Segment | MatchOn::Cover => {
                        analyses.get(text).generous_texts().try_for_each(|segment| {
                            shell::anchor_into(&mut anchored, segment);
                            self.match_field(dfas, id, &field, &anchored, matchers)
                        })
                    }
                };
                match result {
                    Ok(()) => false,
                    Err(e) => {
                        failure = Some(e);
                        true
                    }
                }
            });
            if let Some(e) = failure {
                return Err(e);
            }
        }
        matchers.sort_unstable();
        matchers.dedup();
        Ok(cover_fields)
    }

    /// The rules that fire on the matched `matchers` and tool `globs` for the event: those
    /// all of whose matchers matched, and those with none.
    fn fired_rules(&self, matchers: &[u32], globs: &[u32], event_bit: u8) -> Checked<Vec<u32>> {
        let mut candidates = Vec::new();
        for &matcher in matchers {
            let record = self.record::<MatcherRecord>(matcher as usize)?;
            self.postings(record.posting_first, record.posting_count, &mut candidates)?;
        }
        candidates.sort_unstable();
        let mut fired = Vec::new();
        for run in candidates.chunk_by(|a, b| a == b) {
            let rule = self.record::<RuleRecord>(run[0] as usize)?;
            if rule.matcher_count as usize == run.len()
                && self.event_applies(&rule, event_bit)
                && self.tool_applies(&rule, globs)?
            {
                fired.push(run[0]);
            }
        }
        let mut matcherless = Vec::new();
        for &glob in globs {
            let record = self.record::<GlobRecord>(glob as usize)?;
            self.postings(record.posting_first, record.posting_count, &mut matcherless)?;
        }
        let (universal_first, universal_count) = self.universal_rules;
        self.postings(
            universal_first as u32,
            universal_count as u32,
            &mut matcherless,
        )?;
        for rule_index in matcherless {
            let rule = self.record::<RuleRecord>(rule_index as usize)?;
            if self.event_applies(&rule, event_bit) {
                fired.push(rule_index);
            }
        }
        Ok(fired)
    }

    /// The fired rules' decisions, ids and reasons, for the fold.
    fn fired_views(&self, fired: Vec<u32>) -> Checked<Vec<(usize, FiredRule<'_>)>> {
        let mut views = Vec::with_capacity(fired.len());
        for index in fired {
            let rule = self.record::<RuleRecord>(index as usize)?;
            let decision = *Decision::ALL
                .get(rule.decision_code() as usize)
                .ok_or(Inconsistent("a rule's decision is not a decision"))?;
            let token = |offset: u32, len: u32| -> Checked<Cow<'_, str>> {
                self.json
                    .as_bytes()
                    .get(offset as usize..offset as usize + len as usize)
                    .and_then(json_string)
                    .ok_or(Inconsistent(
                        "a rule's id or reason is not a string of the policy JSON",
                    ))
            };
            views.push((
                index as usize,
                FiredRule {
                    decision,
                    id: token(rule.id_offset, rule.id_len)?,
                    reason: token(rule.reason_offset, rule.reason_len)?,
                },
            ));
        }
        Ok(views)
    }

    /// The first deny or ask rule, in policy order, that applies to the call and has a
    /// matcher governing the shell on a field whose command the guard cannot read, with why
    /// (the definition is [`crate::reference::ReferenceEvaluator::governing_rule`]). Looked
    /// for only when such a command occurs, so the matcher table is scanned only then.
    fn governing_rule(
        &self,
        call: Call<'_>,
        event_bit: u8,
        globs: &[u32],
        analyses: &mut shell::AnalysisCache<'_>,
    ) -> Checked<Option<(u32, String)>> {
        let mut unreadable: Vec<(u32, &str, String)> = Vec::new();
        for field_id in 0..self.field_count {
            let field = self.record::<FieldRecord>(field_id)?;
            let view = view_of_code(field.view_code())
                .ok_or(Inconsistent("a field's view is not a view"))?;
            if !semantics::governs_the_shell(view) {
                continue;
            }
            let path = self.str(field.path_offset, field.path_len)?;
            if let Some(serde_json::Value::String(text)) = semantics::lookup(call.tool_input, path)
                && let Some(why) = analyses.get(text).unresolvable()
            {
                unreadable.push((field_id as u32, path, why.to_string()));
            }
        }
        if unreadable.is_empty() {
            return Ok(None);
        }
        // (rule, field path, why): the lowest rule, then the path that sorts first.
        let mut best: Option<(u32, &str, &str)> = None;
        let mut rules = Vec::new();
        for matcher in 0..self.record_count::<MatcherRecord>() {
            let record = self.record::<MatcherRecord>(matcher)?;
            let Some((_, path, why)) = unreadable.iter().find(|(f, _, _)| *f == record.field)
            else {
                continue;
            };
            rules.clear();
            self.postings(record.posting_first, record.posting_count, &mut rules)?;
            for &index in &rules {
                if best.is_some_and(|(b, p, _)| (b, p) <= (index, *path)) {
                    continue;
                }
                let rule = self.record::<RuleRecord>(index as usize)?;
                let decision = Decision::ALL.get(rule.decision_code() as usize);
                if matches!(decision, Some(Decision::Deny | Decision::Ask))
                    && self.event_applies(&rule, event_bit)
                    && self.tool_applies(&rule, globs)?
                {
                    best = Some((index, path, why));
                }
            }
        }
        Ok(best.map(|(index, _, why)| (index, why.to_string())))
    }

    /// The glob that is exactly `tool_name`, if any: binary search over the sorted names.
    pub(super) fn exact_tool(&self, tool_name: &str, globs: &mut Vec<u32>) -> Checked<()> {
        let count = self.record_count::<ToolNameRecord>();
        let name = |i: usize| -> Checked<(&[u8], u32)> {
            let entry = self.record::<ToolNameRecord>(i)?;
            Ok((self.bytes_at(entry.offset, entry.len)?, entry.glob))
        };
        let first_not_below = partition_point(count, |i| Ok(name(i)?.0 < tool_name.as_bytes()))?;
        if first_not_below < count {
            let (found, glob) = name(first_not_below)?;
            if found == tool_name.as_bytes() {
                globs.push(glob);
            }
        }
        Ok(())
    }

    /// Every glob `P*` whose `P` is a prefix of `tool_name` ([`sorted_prefixes_of`]).
    pub(super) fn tool_prefixes(&self, tool_name: &str, globs: &mut Vec<u32>) -> Checked<()> {
        let count = self.record_count::<ToolPrefixRecord>();
        let entry = |i: usize| self.record::<ToolPrefixRecord>(i);
        sorted_prefixes_of(
            tool_name.as_bytes(),
            count,
            |i| {
                let prefix = entry(i)?;
                self.bytes_at(prefix.offset, prefix.len)
            },
            |i| {
                globs.push(entry(i)?.glob);
                Ok(())
            },
        )
    }

    pub(super) fn event_applies(&self, rule: &RuleRecord, event_bit: u8) -> bool {
        rule.event_mask() & event_bit != 0
    }

    pub(super) fn tool_applies(&self, rule: &RuleRecord, matched_globs: &[u32]) -> Checked<bool> {
        if rule.glob_count == 0 {
            return Ok(true);
        }
        for i in 0..rule.glob_count as usize {
            let glob = self.word(Section::RuleGlobs, rule.glob_first as usize + i)?;
            if matched_globs.binary_search(&glob).is_ok() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The `covers` rules of a [`MatchOn::Cover`] field that cover `analysis`, added to
    /// `covering` only when every segment has a strict text some applicable rule matches
    /// (the definition is [`crate::reference::ReferenceEvaluator::covering_rules`]).
    pub(super) fn covering_rules<'p>(
        &'p self,
        dfas: &Dfas<'p>,
        field_id: u32,
        field: &FieldRecord,
        analysis: &shell::Analysis,
        (event_bit, globs): (u8, &[u32]),
        covering: &mut Vec<u32>,
    ) -> Checked<()> {
        if !analysis.coverable() {
            return Ok(());
        }
        let mut used = Vec::new();
        let mut matched = Vec::new();
        let mut rules = Vec::new();
        let mut anchored = String::new();
        for segment in analysis.covered_segments() {
            matched.clear();
            for text in &segment.strict {
                shell::anchor_into(&mut anchored, text);
                self.match_field(dfas, field_id, field, &anchored, &mut matched)?;
            }
            rules.clear();
            for &matcher in &matched {
                let record = self.record::<MatcherRecord>(matcher as usize)?;
                self.postings(record.posting_first, record.posting_count, &mut rules)?;
            }
            let before = used.len();
            for &index in &rules {
                let rule = self.record::<RuleRecord>(index as usize)?;
                if rule.matcher_count == 1
                    && self.event_applies(&rule, event_bit)
                    && self.tool_applies(&rule, globs)?
                {
                    used.push(index);
                }
            }
            if used.len() == before {
                return Ok(());
            }
        }
        covering.extend(used);
        Ok(())
    }

    /// Add every matcher of `field_id` that matches `text` to `matched`.
    pub(super) fn match_field<'p>(
        &'p self,
        dfas: &Dfas<'p>,
        field_id: u32,
        field: &FieldRecord,
        text: &str,
        matched: &mut Vec<u32>,
    ) -> Checked<()> {
        self.extend_from(
            Section::MatcherLists,
            field.always_first,
            field.always_count,
            matched,
        )?;
        if field.key_lengths != 0 {
            let mut hits = dfas.hits.borrow_mut();
            let HitLists {
                to_confirm,
                chains,
                pieces,
            } = &mut *hits;
            to_confirm.clear();
            chains.clear();
            pieces.clear();
            self.search_literals(
                field_id,
                field.key_lengths,
                text.as_bytes(),
                LiteralHits {
                    matched,
                    to_confirm,
                    chains,
                    pieces,
                },
            )?;
            // (automaton, start): whole-text confirmations carry no start.
            to_confirm.sort_unstable();
            to_confirm.dedup();
            for &(automaton, start) in to_confirm.iter() {
                self.run_automaton(dfas, automaton, text, start, matched)?;
            }
            // A chain is checked once, however often its literal occurs, and searched for
            // only if every one of its pieces occurs somewhere.
            chains.sort_unstable();
            chains.dedup();
            pieces.sort_unstable();
            pieces.dedup();
            for &matcher in chains.iter() {
                if self.chain_matches(matcher, text, pieces)? {
                    matched.push(matcher);
                }
            }
        }
        for i in 0..field.scan_count as usize {
            let automaton = self.word(Section::AutomatonLists, field.scan_first as usize + i)?;
            self.run_automaton(dfas, automaton, text, None, matched)?;
        }
        Ok(())
    }
}
