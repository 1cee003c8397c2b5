//! Projects: named containers for documents and runs.

use rusqlite::{params, OptionalExtension, Row};

use crate::{Project, ProjectId, Result, Store, StoreError};

const SELECT: &str = "SELECT p.id, p.name, p.created_at,
        (SELECT count(*) FROM documents d WHERE d.project_id = p.id),
        (SELECT count(*) FROM runs r WHERE r.project_id = p.id)
    FROM projects p";

fn from_row(r: &Row) -> rusqlite::Result<Project> {
    Ok(Project { id: r.get(0)?, name: r.get(1)?, created_at: r.get(2)?, documents: r.get(3)?, runs: r.get(4)? })
}

impl Store {
    /// Creates a project. Names are unique and must not be empty or all digits (digits address projects by id).
    pub fn create_project(&self, name: &str) -> Result<Project> {
        let name = name.trim();
        if name.is_empty() {
            return Err(StoreError::Invalid("a project name must not be empty".into()));
        }
        if name.chars().all(|c| c.is_ascii_digit()) {
            return Err(StoreError::Invalid(format!("project name {name:?} is all digits, which would read as an id")));
        }
        match self.conn.execute("INSERT INTO projects (name) VALUES (?1)", [name]) {
            Ok(_) => self.project(self.conn.last_insert_rowid()),
            Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => {
                Err(StoreError::DuplicateProject(name.to_string()))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// All projects, oldest first.
    pub fn list_projects(&self) -> Result<Vec<Project>> {
        self.rows(&format!("{SELECT} ORDER BY p.id"), [], from_row)
    }

    pub fn project(&self, id: ProjectId) -> Result<Project> {
        self.row_by_id(&format!("{SELECT} WHERE p.id = ?1"), id, "project", from_row)
    }

    /// Finds a project by exact name, or by id when `name_or_id` is all digits.
    pub fn find_project(&self, name_or_id: &str) -> Result<Project> {
        let key = name_or_id.trim();
        if let Ok(id) = key.parse::<ProjectId>() {
            return self.project(id);
        }
        self.conn
            .query_row(&format!("{SELECT} WHERE p.name = ?1"), [key], from_row)
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: "project", id: format!("{key:?}") })
    }

    /// The project named `name`, created when there is none: what every run started by name goes into.
    pub fn find_or_create_project(&self, name: &str) -> Result<Project> {
        match self.find_project(name) {
            Err(StoreError::NotFound { .. }) => self.create_project(name),
            found => found,
        }
    }

    pub fn rename_project(&self, id: ProjectId, name: &str) -> Result<()> {
        let name = name.trim();
        if name.is_empty() {
            return Err(StoreError::Invalid("a project name must not be empty".into()));
        }
        let n = self.conn.execute("UPDATE projects SET name = ?2 WHERE id = ?1", params![id, name]).map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                StoreError::DuplicateProject(name.to_string())
            }
            e => e.into(),
        })?;
        if n == 0 {
            return Err(StoreError::NotFound { what: "project", id: id.to_string() });
        }
        Ok(())
    }

    /// Deletes a project with its documents, runs, outputs, metric results and judgments.
    pub fn delete_project(&self, id: ProjectId) -> Result<()> {
        if self.conn.execute("DELETE FROM projects WHERE id = ?1", [id])? == 0 {
            return Err(StoreError::NotFound { what: "project", id: id.to_string() });
        }
        Ok(())
    }
}
