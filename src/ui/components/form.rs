//! Form parts the dialogs share, each drawing exactly the markup the dialogs wrote out before:
//! the Cancel / Save row at a dialog's foot ([`SaveActions`]), a file input that hands over the
//! files picked ([`FilePicker`]) and a labelled number field bound to a text signal
//! ([`NumberField`]). No rules here: what a value means is the caller's.

use leptos::either::Either;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// `<div class="dialog-actions">` with "Cancel" and then the primary button, which submits the
/// dialog's form, or runs `on_save` when given.
#[component]
pub fn SaveActions(
    /// "Cancel" was pressed.
    on_cancel: Callback<()>,
    /// The primary button's text ("Save" unless said).
    #[prop(default = "Save")]
    label: &'static str,
    /// What the primary button runs; without it the button is the form's submit button.
    #[prop(optional)]
    on_save: Option<Callback<()>>,
    /// While true the primary button is disabled (only with `on_save`).
    #[prop(optional, into)]
    busy: Signal<bool>,
) -> impl IntoView {
    let primary = match on_save {
        None => Either::Left(view! { <button type="submit" class="primary">{label}</button> }),
        Some(save) => Either::Right(view! {
            <button type="button" class="primary" disabled=move || busy.get() on:click=move |_| save.run(())>{label}</button>
        }),
    };
    view! {
        <div class="dialog-actions">
            <button type="button" on:click=move |_| on_cancel.run(())>"Cancel"</button>
            {primary}
        </div>
    }
}

/// The files of a file list (a picker's or a drop's).
pub fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
        .unwrap_or_default()
}

/// `<input type="file">`: `on_pick` gets the files picked, after the input is emptied (so the
/// same file can be picked again).
#[component]
pub fn FilePicker(
    /// The input's id (for a `<label for=…>`).
    #[prop(optional)]
    id: Option<&'static str>,
    /// The file types offered (the `accept` attribute).
    accept: &'static str,
    /// Whether several files may be picked at once.
    #[prop(optional)]
    multiple: bool,
    /// The input's class.
    #[prop(optional)]
    class: Option<&'static str>,
    /// While true the input is disabled.
    #[prop(optional, into)]
    disabled: Signal<bool>,
    /// The files picked (none if the choice was cancelled).
    on_pick: Callback<Vec<web_sys::File>>,
) -> impl IntoView {
    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let files = files_of(input.files());
        input.set_value("");
        on_pick.run(files);
    };
    view! {
        <input id=id type="file" multiple=multiple accept=accept class=class
            prop:disabled=move || disabled.get() on:change=on_change />
    }
}

/// `<label>` with `label` and a number input whose text is `value` (read, and checked, by the
/// caller on saving).
#[component]
pub fn NumberField(
    /// The field's name.
    label: &'static str,
    /// The text in the field.
    value: RwSignal<String>,
    /// The smallest number (the `min` attribute).
    min: &'static str,
    /// The largest number (the `max` attribute), if any.
    #[prop(optional, into)]
    max: Option<String>,
    /// The `step` attribute.
    step: &'static str,
    /// What the empty field stands for (the `placeholder` attribute), if anything.
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
) -> impl IntoView {
    view! {
        <label>
            {label}
            <input type="number" min=min max=max step=step placeholder=move || placeholder.get()
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev)) />
        </label>
    }
}
