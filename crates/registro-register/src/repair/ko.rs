use super::{Ctx, Edit};

pub(super) fn edits(_c: &Ctx<'_>) -> Vec<Edit> {
    Vec::new()
}
