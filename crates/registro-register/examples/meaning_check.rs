//! The meaning check of each stdin line `lang<TAB>source<TAB>translation`, one output line each: the flags as the
//! product words them ("untranslated: …; name dropped: …"), or nothing. Lets `scripts/heldout-check.py --recheck`
//! re-read stored outputs after a change to the check without translating them again:
//! `printf 'fr\tSee you, Anna!\tÀ bientôt !\n' | cargo run --example meaning_check`
use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let mut parts = line.splitn(3, '\t');
        let (Some(lang), Some(source), Some(output)) = (parts.next(), parts.next(), parts.next()) else {
            eprintln!("meaning_check: expected lang<TAB>source<TAB>translation, got {line:?}");
            std::process::exit(2);
        };
        let lang: registro_register::Lang = lang.parse().unwrap_or_else(|e| panic!("language {lang:?}: {e}"));
        let flags = registro_register::meaning::check(lang, source, output);
        let words: Vec<String> = flags.iter().map(|f| format!("{}: {}", f.issue.as_str(), f.detail)).collect();
        println!("{}", words.join("; "));
    }
}
