//! Which way is better, for every number the Dashboard, `registro report` and the drill-down rank by. A metric
//! such as BLEU or TER has one direction whatever the runs asked for; formality has none of its own: it follows
//! the register the runs were asked to produce (an informal target is met by *lower* formality). The rule lives
//! here once; tables, charts, markers and the drill-down's "improved" order all ask it.

use registro_metrics::Better;
use registro_register::Register;

/// Which way is better for one metric in one comparison, and why (shown beside the arrow).
#[derive(Debug, Clone, PartialEq)]
pub struct Direction {
    /// `Some(true)`: higher is better; `Some(false)`: lower is better; `None`: no better side (the runs ask for
    /// different registers, or for none) — nothing is ranked or marked better or worse.
    pub higher_is_better: Option<bool>,
    /// Why, in words: "the runs ask for informal", "runs ask for formal and informal: see M-Acc".
    pub reason: String,
}

impl Direction {
    pub fn fixed(higher_is_better: bool) -> Self {
        Direction { higher_is_better: Some(higher_is_better), reason: String::new() }
    }

    /// The arrow a title or a column shows: "higher is better", "lower is better: the runs ask for informal".
    pub fn label(&self) -> String {
        let arrow = match self.higher_is_better {
            Some(true) => "higher is better",
            Some(false) => "lower is better",
            None => "no better side",
        };
        if self.reason.is_empty() {
            arrow.to_string()
        } else {
            format!("{arrow}: {}", self.reason)
        }
    }
}

/// The side of the formality axis a run's register asks for: formal and respectful up, informal down, none (or a
/// register Registro does not know) no side.
pub fn register_side(register: Option<&str>) -> Option<bool> {
    register?.parse::<Register>().ok().map(Register::is_formal_side)
}

/// The direction of a formality score over runs with these registers: higher is better when every run asks for
/// the formal side, lower when every run asks for informal; no direction when they differ or none asks.
pub fn formality_direction<'a>(registers: impl IntoIterator<Item = Option<&'a str>>) -> Direction {
    let mut sides = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for r in registers {
        sides.push(register_side(r));
        let name = r.unwrap_or("no register").to_string();
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let first = sides.first().copied().flatten();
    if sides.is_empty() || first.is_none() || sides.iter().any(|s| *s != first) {
        let reason = if names.len() > 1 {
            format!("the runs ask for {}; M-Acc scores each run for its own register", names.join(" and "))
        } else {
            "the runs ask for no register".to_string()
        };
        return Direction { higher_is_better: None, reason };
    }
    Direction { higher_is_better: first, reason: format!("the runs ask for {}", names.join(" and ")) }
}

/// The direction of a metric from its row of the metric table ([`registro_metrics::descriptor`]): higher or lower
/// whatever the runs asked, the runs' register side for formality, none for a descriptive number.
pub fn metric_direction<'a>(better: Better, registers: impl IntoIterator<Item = Option<&'a str>>) -> Direction {
    match better {
        Better::Higher => Direction::fixed(true),
        Better::Lower => Direction::fixed(false),
        Better::Register => formality_direction(registers),
        Better::Neither => Direction { higher_is_better: None, reason: "descriptive: no better side".into() },
    }
}

/// The direction of a corpus metric stored for the runs (eval's style and Pang & Gimpel metrics, a rewrite's
/// scores), from its row of the metric table by the name it is stored under; a few numbers other tools store
/// have no row (COMET, a rewrite's chrF to its input, its speed). One Registro does not know has no direction
/// rather than a guessed one.
pub fn stored_metric_direction<'a>(name: &str, registers: impl IntoIterator<Item = Option<&'a str>>) -> Direction {
    if let Some(d) = registro_metrics::descriptor::find(name) {
        return metric_direction(d.better, registers);
    }
    match name.to_lowercase().as_str() {
        "seconds_per_sentence" => Direction::fixed(false),
        "chrf.input" | "comet" => Direction::fixed(true),
        _ => Direction { higher_is_better: None, reason: "descriptive: no better side".into() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formality_follows_the_requested_register() {
        let informal = formality_direction([Some("informal"), Some("informal")]);
        assert_eq!(informal.higher_is_better, Some(false), "an informal target is met by lower formality");
        assert_eq!(informal.label(), "lower is better: the runs ask for informal");
        assert_eq!(formality_direction([Some("formal"), Some("respectful")]).higher_is_better, Some(true));
        let mixed = formality_direction([Some("formal"), Some("informal")]);
        assert_eq!(mixed.higher_is_better, None, "no side is better when the runs ask for both");
        assert!(mixed.label().contains("formal and informal"), "{}", mixed.label());
        assert_eq!(formality_direction([None, None]).higher_is_better, None);
        assert_eq!(formality_direction(Vec::<Option<&str>>::new()).higher_is_better, None);
    }

    #[test]
    fn stored_metrics_have_a_known_direction_or_none() {
        assert_eq!(stored_metric_direction("perplexity", [Some("formal")]).higher_is_better, Some(false));
        assert_eq!(stored_metric_direction("GM", [Some("formal")]).higher_is_better, Some(true));
        assert_eq!(stored_metric_direction("formality", [Some("informal")]).higher_is_better, Some(false));
        assert_eq!(stored_metric_direction("LeD", [Some("formal")]).higher_is_better, None, "descriptive, not ranked");
    }
}
