//! JSON Lines: one object per line, `{"text": …}` or `{"source": …, "references": {"formal": …, …}}`
//! (`references` may also be an array, read as `ref0`, `ref1`, …). Blank lines are skipped.

use std::path::Path;

use serde_json::Value;

use super::{lines, ImportOptions};
use crate::{ImportError, NewDocument, NewSegment};

pub(super) fn parse(path: &Path, text: &str, opts: &ImportOptions) -> Result<NewDocument, ImportError> {
    let mut segments = Vec::new();
    for (i, line) in lines::split_lines(text).iter().enumerate() {
        let err = |message: String| ImportError::Parse { path: path.to_path_buf(), line: i + 1, message };
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| err(format!("invalid JSON: {e}")))?;
        let obj = value.as_object().ok_or_else(|| err("expected a JSON object per line".into()))?;
        let field = opts.column.as_deref();
        let text = match field {
            Some(f) => obj.get(f),
            None => obj.get("text").or_else(|| obj.get("source")).or_else(|| obj.get("src")),
        }
        .ok_or_else(|| err(format!("no {} field", field.map(|f| format!("{f:?}")).unwrap_or("\"text\" or \"source\"".into()))))?
        .as_str()
        .ok_or_else(|| err("the text field must be a string".into()))?;
        let mut references = Vec::new();
        match obj.get("references") {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                for (name, v) in m {
                    let t = v.as_str().ok_or_else(|| err(format!("reference {name:?} must be a string")))?;
                    references.push((name.clone(), t.to_string()));
                }
            }
            Some(Value::Array(a)) => {
                for (k, v) in a.iter().enumerate() {
                    let t = v.as_str().ok_or_else(|| err(format!("reference {k} must be a string")))?;
                    references.push((format!("ref{k}"), t.to_string()));
                }
            }
            Some(_) => return Err(err("\"references\" must be an object of name → text, or an array".into())),
        }
        segments.push(NewSegment { text: text.to_string(), references });
    }
    super::file_document(path, opts, "jsonl", segments)
}
