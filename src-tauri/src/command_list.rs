// Every command the window may call. `build.rs` includes this file and declares the list to tauri-build, which
// generates an `allow-<command>` permission for each (underscores become dashes); `capabilities/default.json`
// grants them to the main window. Tauri's ACL then refuses any command that is not granted, so a command added to
// `generate_handler!` alone cannot be called from the page. The tests below keep the three lists in step.
// (Plain comments: build.rs `include!`s this file, where inner doc comments are not allowed.)

pub const COMMANDS: &[&str] = &[
    "app_info",
    "about_report",
    "startup_status",
    "startup_file",
    "cancel_operation",
    "choose_file",
    "list_projects",
    "create_project",
    "rename_project",
    "delete_project",
    "list_documents",
    "get_document",
    "document_segments",
    "delete_document",
    "import_document",
    "list_runs",
    "get_run",
    "delete_run",
    "resume_run",
    "dashboard_list_runs",
    "dashboard_import_submissions",
    "dashboard_compare",
    "dashboard_drilldown",
    "dashboard_rating_items",
    "dashboard_save_ratings",
    "dashboard_human_summary",
    "dashboard_export",
    "dashboard_save_chart",
    "dashboard_chart_svg",
    "dashboard_table",
    "dashboard_defaults",
    "rewrite_defaults",
    "rewrite_text",
    "score_formality",
    "export_rewrite",
    "open_rewrite_run",
    "save_rewrite_choices",
    "translate_defaults",
    "translate_text",
    "check_translation",
    "save_translation_edit",
    "repair_translation",
    "repair_segment",
    "export_translation",
    "review_run",
    "review_run_rows",
    "set_segment_status",
    "split_segment",
    "join_segments",
    "export_document",
    "export_tmx",
    "qa_run",
    "test_backend",
    "backend_status",
    "clear_backend",
    "forget_backend_key",
    "first_start",
    "list_models",
    "download_model",
    "verify_model",
    "remove_model",
    "import_model",
];

#[cfg(test)]
mod tests {
    use super::COMMANDS;

    /// The command names inside `generate_handler![…]` in lib.rs.
    fn registered() -> Vec<String> {
        let lib = include_str!("lib.rs");
        let start = lib.find("generate_handler![").expect("lib.rs registers its commands") + "generate_handler![".len();
        let end = start + lib[start..].find(']').expect("the list ends");
        lib[start..end]
            .split(',')
            .map(|c| c.trim().rsplit("::").next().unwrap_or("").to_string())
            .filter(|c| !c.is_empty())
            .collect()
    }

    #[test]
    fn every_registered_command_is_declared_and_nothing_else() {
        let mut reg = registered();
        let mut declared: Vec<String> = COMMANDS.iter().map(|c| c.to_string()).collect();
        reg.sort();
        declared.sort();
        assert_eq!(
            reg, declared,
            "generate_handler! in lib.rs and COMMANDS in command_list.rs must list the same commands"
        );
    }

    #[test]
    fn the_window_is_granted_exactly_the_declared_commands_and_no_file_access() {
        let cap: serde_json::Value = serde_json::from_str(include_str!("../capabilities/default.json")).unwrap();
        let perms: Vec<&str> = cap["permissions"].as_array().unwrap().iter().filter_map(|p| p.as_str()).collect();
        let mut app: Vec<String> =
            perms.iter().filter(|p| p.starts_with("allow-")).map(|p| p["allow-".len()..].replace('-', "_")).collect();
        let mut declared: Vec<String> = COMMANDS.iter().map(|c| c.to_string()).collect();
        app.sort();
        declared.sort();
        assert_eq!(app, declared, "capabilities/default.json grants allow-<command> for each declared command");
        // The page must not open dialogs itself (it would get paths back) nor touch files or the network.
        for p in &perms {
            assert!(
                !(p.starts_with("dialog:")
                    || p.starts_with("fs:")
                    || p.starts_with("http:")
                    || p.starts_with("shell:")),
                "the web view must not be granted {p}"
            );
        }
    }
}
