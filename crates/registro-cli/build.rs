fn main() {
    emit_commit();
}

include!("../../scripts/build_commit.rs");
