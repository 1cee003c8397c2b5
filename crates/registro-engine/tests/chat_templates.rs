//! Chat templates render exactly the prompt strings the model families were trained on.
use registro_engine::chat::{render, ChatMessage, ChatTemplate, TemplateOrigin, GEMMA3_TEMPLATE, LLAMA3_TEMPLATE, QWEN2_TEMPLATE};
use registro_engine::gguf_meta::GgufMeta;
use registro_models::default_root;

fn conversation() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("Translate into formal German."),
        ChatMessage::user("Can you help me?"),
        ChatMessage::assistant("Können Sie mir helfen?"),
    ]
}

#[test]
fn qwen_template_renders_chatml() {
    let out = render(QWEN2_TEMPLATE, &conversation(), false, "", "<|im_end|>").unwrap();
    assert_eq!(
        out,
        "<|im_start|>system\nTranslate into formal German.<|im_end|>\n<|im_start|>user\nCan you help me?<|im_end|>\n<|im_start|>assistant\nKönnen Sie mir helfen?<|im_end|>\n"
    );
    let out = render(QWEN2_TEMPLATE, &conversation()[1..2], true, "", "").unwrap();
    assert_eq!(
        out,
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nCan you help me?<|im_end|>\n<|im_start|>assistant\n"
    );
}

#[test]
fn gemma3_template_folds_the_system_prompt_into_the_first_user_turn() {
    let out = render(GEMMA3_TEMPLATE, &conversation(), false, "<bos>", "<eos>").unwrap();
    assert_eq!(
        out,
        "<bos><start_of_turn>user\nTranslate into formal German.\n\nCan you help me?<end_of_turn>\n<start_of_turn>model\nKönnen Sie mir helfen?<end_of_turn>\n"
    );
    let out = render(GEMMA3_TEMPLATE, &conversation()[..2], true, "<bos>", "<eos>").unwrap();
    assert!(out.ends_with("Can you help me?<end_of_turn>\n<start_of_turn>model\n"), "{out:?}");
    // Roles that do not alternate are the template's own error, surfaced with its message.
    let bad = vec![ChatMessage::user("a"), ChatMessage::user("b")];
    let err = format!("{:#}", render(GEMMA3_TEMPLATE, &bad, false, "<bos>", "<eos>").unwrap_err());
    assert!(err.contains("Conversation roles must alternate"), "{err}");
}

#[test]
fn llama3_template_renders_headers_and_eot() {
    let out = render(LLAMA3_TEMPLATE, &conversation(), true, "<|begin_of_text|>", "<|eot_id|>").unwrap();
    assert_eq!(
        out,
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nTranslate into formal German.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nCan you help me?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nKönnen Sie mir helfen?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
    );
}

#[test]
fn builtin_templates_by_family() {
    assert!(matches!(ChatTemplate::builtin("gemma3").origin, TemplateOrigin::BuiltIn(_)));
    assert_eq!(ChatTemplate::builtin("gemma3").bos_token, "<bos>");
    assert_eq!(ChatTemplate::builtin("llama").source, LLAMA3_TEMPLATE);
    let chatml = ChatTemplate::builtin("mistery").render(&conversation()[1..2], true).unwrap();
    assert_eq!(chatml, "<|im_start|>user\nCan you help me?<|im_end|>\n<|im_start|>assistant\n");
}

#[test]
fn templates_from_the_real_gguf_files() {
    let q = default_root().join("qwen2.5-coder-1.5b-instruct/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf");
    let g = default_root().join("gemma-3-270m/gemma-3-270m-q4_k_m.gguf");
    if !q.is_file() || !g.is_file() {
        println!("skipped: real GGUF files not in the cache (registro models fetch qwen2.5-coder-1.5b-instruct gemma-3-270m)");
        return;
    }
    let meta = GgufMeta::read(&q).unwrap();
    let t = ChatTemplate::from_gguf(&meta.content);
    assert_eq!(t.origin, TemplateOrigin::ModelFile);
    assert_eq!(t.source, QWEN2_TEMPLATE);
    assert_eq!(t.eos_token, "<|im_end|>");
    assert_eq!(
        t.render(&conversation(), true).unwrap(),
        render(QWEN2_TEMPLATE, &conversation(), true, "", "").unwrap()
    );
    // The Gemma 3 270M base model carries no template: the built-in Gemma 3 one is used, with its bos token.
    let meta = GgufMeta::read(&g).unwrap();
    let t = ChatTemplate::from_gguf(&meta.content);
    assert_eq!(t.origin, TemplateOrigin::BuiltIn("gemma3".into()));
    assert!(t.render(&conversation(), false).unwrap().starts_with("<bos><start_of_turn>user\n"));
}
