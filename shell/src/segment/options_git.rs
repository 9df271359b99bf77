//! git's option tables for the normal form ([`super::options`]): its global options and
//! the options of its subcommands, from `git <subcommand> -h` of git 2.47 (spec syntax in
//! `options`).

/// git's global options (before the subcommand; matched exactly, as git does).
pub(super) const GIT_GLOBAL: &str = "-C= -c= exec-path? html-path man-path info-path p/paginate \
     P/no-pager no-replace-objects no-lazy-fetch no-optional-locks no-advice bare git-dir= \
     work-tree= namespace= super-prefix= config-env= list-cmds= attr-source= \
     literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs";

/// The options of git's subcommands (for `stash`, `worktree`, `remote`, `reflog`, `notes`:
/// the union over their own subcommands).
pub(super) const GIT_SUBCOMMANDS: &[(&str, &str)] = &[
    (
        "add",
        "A/all! chmod!= n/dry-run! e/edit! f/force! ignore-errors! ignore-missing! \
         ignore-removal! N/intent-to-add! i/interactive! p/patch! pathspec-file-nul! \
         pathspec-from-file!= refresh! renormalize! sparse! u/update! v/verbose!",
    ),
    (
        "am",
        "3/3way! -C= abort allow-empty committer-date-is-author-date! continue directory!= \
         empty= exclude!= S/gpg-sign!? ignore-date! ignore-space-change! ignore-whitespace! \
         include!= i/interactive! k/keep! keep-cr! keep-non-patch! m/message-id! n/no-verify \
         -p= patch-format!= q/quiet! quit quoted-cr= reject! rerere-autoupdate! r/resolved \
         resolvemsg! retry c/scissors! show-current-patch? s/signoff! skip u/utf8! verify \
         whitespace!=",
    ),
    (
        "apply",
        "3/3way! -C= add allow-empty! allow-overlap! apply! build-fake-ancestor!= cached! \
         check! directory!= exclude= ignore-space-change! ignore-whitespace! inaccurate-eof! \
         include= index! N/intent-to-add! no-add numstat! ours -p= q/quiet! recount! reject! \
         R/reverse! stat! summary! theirs unidiff-zero! union unsafe-paths! v/verbose! \
         whitespace!= -z",
    ),
    (
        "branch",
        "-C -D -M abbrev!? a/all color!? column!? contains= c/copy! create-reflog! d/delete! \
         edit-description! f/force! format!= i/ignore-case! l/list! merged= m/move! \
         no-contains= no-merged= omit-empty! points-at!= q/quiet! recurse-submodules! \
         r/remotes u/set-upstream-to!= show-current! sort!= t/track!? unset-upstream! \
         v/verbose!",
    ),
    (
        "checkout",
        "-B= -b= conflict!= d/detach! f/force! guess! ignore-other-worktrees! \
         ignore-skip-worktree-bits! -l m/merge! orphan!= 2/ours overlay! overwrite-ignore! \
         p/patch! pathspec-file-nul! pathspec-from-file!= progress! q/quiet! \
         recurse-submodules!? 3/theirs t/track!?",
    ),
    (
        "checkout-index",
        "a/all! create f/force! ignore-skip-worktree-bits! u/index! n/no-create prefix!= \
         q/quiet! stage= stdin! temp! -z",
    ),
    (
        "cherry-pick",
        "abort allow-empty! allow-empty-message! cleanup!= commit continue e/edit! empty= ff! \
         S/gpg-sign!? keep-redundant-commits! m/mainline!= n/no-commit quit \
         rerere-autoupdate! s/signoff! skip strategy!= X/strategy-option!= -x",
    ),
    (
        "clean",
        "-X -d n/dry-run! e/exclude= f/force! i/interactive! q/quiet! -x",
    ),
    (
        "commit",
        "ahead-behind! a/all! amend! author!= branch! cleanup!= date!= dry-run! e/edit! \
         F/file!= fixup! S/gpg-sign!? i/include! interactive! long! m/message!= \
         no-post-rewrite n/no-verify z/null! o/only! p/patch! pathspec-file-nul! \
         pathspec-from-file!= porcelain! post-rewrite q/quiet! c/reedit-message!= \
         reset-author! C/reuse-message!= short! s/signoff! squash!= status! t/template!= \
         trailer= u/untracked-files!? v/verbose! verify",
    ),
    (
        "fetch",
        "all! a/append! atomic! auto-gc! auto-maintenance! deepen!= depth!= dry-run! filter!= \
         f/force! 4/ipv4 6/ipv6 j/jobs!= k/keep! m/multiple! -n negotiate-only! \
         negotiation-tip!= porcelain! prefetch! progress! p/prune! P/prune-tags! q/quiet! \
         recurse-submodules!? refetch refmap= o/server-option!= set-upstream! \
         shallow-exclude!= shallow-since!= show-forced-updates! stdin! t/tags! unshallow \
         u/update-head-ok! update-shallow! upload-pack!= v/verbose! write-commit-graph! \
         write-fetch-head!",
    ),
    (
        "gc",
        "aggressive! auto! cruft! detach! force! keep-largest-pack! max-cruft-size= prune!? \
         q/quiet!",
    ),
    (
        "merge",
        "abort! allow-unrelated-histories! autostash! cleanup!= commit! continue! e/edit! ff! \
         ff-only F/file= S/gpg-sign!? into-name!= log!? m/message!= -n no-verify \
         overwrite-ignore! progress! q/quiet! quit! rerere-autoupdate! signoff! squash! stat! \
         s/strategy!= X/strategy-option!= summary! v/verbose! verify verify-signatures!",
    ),
    ("mv", "n/dry-run! f/force! -k sparse! v/verbose!"),
    (
        "notes",
        "n/dry-run! ignore-missing! ref!= stdin! v/verbose!",
    ),
    (
        "prune",
        "n/dry-run! exclude-promisor-objects! expire!= progress! v/verbose!",
    ),
    (
        "pull",
        "all! allow-unrelated-histories! a/append! autostash! cleanup!= commit! deepen!= \
         depth!= dry-run! edit! ff! ff-only f/force! S/gpg-sign!? 4/ipv4! 6/ipv6! j/jobs!? \
         k/keep! log!? -n negotiation-tip!= progress! p/prune! q/quiet! r/rebase!? \
         recurse-submodules!? refmap= o/server-option!= set-upstream! shallow-exclude!= \
         shallow-since!= show-forced-updates! signoff!? squash! stat! s/strategy!= \
         X/strategy-option!= t/tags! unshallow update-shallow! upload-pack!= v/verbose! \
         verify! verify-signatures!",
    ),
    (
        "push",
        "all! atomic! branches! d/delete! n/dry-run! exec!= follow-tags! f/force! \
         force-if-includes! force-with-lease!? 4/ipv4 6/ipv6 mirror! no-verify porcelain! \
         progress! prune! o/push-option!= q/quiet! receive-pack!= recurse-submodules!= repo!= \
         u/set-upstream! signed!? tags! thin! v/verbose! verify",
    ),
    (
        "rebase",
        "-C= abort apply autosquash! autostash! committer-date-is-author-date! continue \
         edit-todo empty= x/exec!= ff f/force-rebase! fork-point! S/gpg-sign!? \
         ignore-whitespace! i/interactive keep-base! m/merge no-ff n/no-stat no-verify onto!= \
         q/quiet! quit reapply-cherry-picks! r/rebase-merges!? rerere-autoupdate! \
         reschedule-failed-exec! reset-author-date! root! show-current-patch signoff! skip \
         stat s/strategy!= X/strategy-option!= update-refs! v/verbose! verify whitespace!=",
    ),
    (
        "reflog",
        "all! n/dry-run! expire-unreachable= expire= rewrite! single-worktree! stale-fix! \
         updateref! verbose!",
    ),
    (
        "remote",
        "add! delete! n/dry-run! f/fetch! m/master!= mirror!? push! tags! t/track!= \
         v/verbose!",
    ),
    (
        "replace",
        "convert-graft-file d/delete e/edit f/force! format!= g/graft l/list raw!",
    ),
    (
        "reset",
        "hard N/intent-to-add! keep merge mixed no-refresh p/patch! pathspec-file-nul! \
         pathspec-from-file!= q/quiet! recurse-submodules!? refresh soft",
    ),
    (
        "restore",
        "conflict!= ignore-skip-worktree-bits! ignore-unmerged! m/merge! 2/ours overlay! \
         p/patch! pathspec-file-nul! pathspec-from-file!= progress! q/quiet! \
         recurse-submodules!? s/source!= S/staged! 3/theirs W/worktree!",
    ),
    (
        "revert",
        "abort cleanup!= commit continue e/edit! S/gpg-sign!? m/mainline!= n/no-commit quit \
         reference! rerere-autoupdate! s/signoff! skip strategy!= X/strategy-option!=",
    ),
    (
        "rm",
        "cached! n/dry-run! f/force! ignore-unmatch! pathspec-file-nul! pathspec-from-file!= \
         q/quiet! -r sparse!",
    ),
    (
        "stash",
        "a/all! u/include-untracked! index! k/keep-index! m/message!= p/patch! \
         pathspec-file-nul! pathspec-from-file!= q/quiet! S/staged!",
    ),
    (
        "switch",
        "conflict!= c/create!= d/detach! discard-changes! f/force! C/force-create!= guess! \
         ignore-other-worktrees! m/merge! orphan!= overwrite-ignore! progress! q/quiet! \
         recurse-submodules!? t/track!?",
    ),
    ("symbolic-ref", "d/delete! -m= q/quiet! recurse! short!"),
    (
        "tag",
        "a/annotate! cleanup!= color!? column!? contains= create-reflog! d/delete e/edit! \
         F/file!= f/force! format!= i/ignore-case! l/list u/local-user!= merged= m/message= \
         no-contains= no-merged= omit-empty! points-at!= s/sign! sort!= trailer= v/verify",
    ),
    (
        "update-index",
        "add! g/again assume-unchanged cacheinfo= chmod= clear-resolve-undo force-remove! \
         force-untracked-cache! force-write-index! fsmonitor! fsmonitor-valid ignore-missing! \
         ignore-skip-worktree-entries! ignore-submodules! index-info index-version!= \
         info-only! no-assume-unchanged no-fsmonitor-valid no-skip-worktree -q really-refresh \
         refresh remove! replace! show-index-version! skip-worktree split-index! stdin \
         test-untracked-cache! unmerged! unresolve untracked-cache! verbose! -z",
    ),
    (
        "update-ref",
        "create-reflog! -d deref -m= no-deref stdin! -z",
    ),
    (
        "worktree",
        "-B= -b= checkout! d/detach! n/dry-run! expire!= f/force! guess-remote! lock! orphan! \
         q/quiet! reason!= track! v/verbose!",
    ),
];
