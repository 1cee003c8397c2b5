//! Prints the labelled word diff for a few informal → formal rewrites:
//! `cargo run -p registro-metrics --example edits_demo`.

fn main() {
    let pairs = [
        (
            "i dont know what ur talking about lol",
            "I do not know what you are talking about.",
        ),
        ("omg thats sooo cool!!!", "Oh my god, that is so cool!"),
        (
            "hey, can u send me the file asap",
            "Hello, could you send me the file as soon as possible?",
        ),
        (
            "I came home, we talked for hours",
            "I came home. We talked for hours.",
        ),
        (
            "Hast du Zeit? hab grad nix zu tun",
            "Haben Sie Zeit? Ich habe gerade nichts zu tun.",
        ),
    ];
    for (old, new) in pairs {
        println!("{old}\n→ {new}");
        for d in
            registro_metrics::edits::diff(old, new, if new.contains("Sie") { "de" } else { "en" })
        {
            match d.kind {
                None => println!("    = {:?}", d.old),
                Some(k) => println!("    {:<15} {:?} → {:?}", k.as_str(), d.old, d.new),
            }
        }
        println!(
            "  types: {:?}\n",
            registro_metrics::edits::edit_types(old, new, "en")
        );
    }
}
