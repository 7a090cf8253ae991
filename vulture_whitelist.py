"""Names vulture cannot see used, each a decision (pyproject.toml's [tool.vulture] scans this file).

Three kinds: names a framework calls by convention (Textual's `compose`, `on_*`, `action_*`,
`watch_*`, `BINDINGS`; Pygments' lexer attributes; protobuf and capstone settings), fields
of records read through their JSON, and public functions only tests call that are kept on
purpose (the reason says why). Anything else vulture reports is dead: delete it, do not list it.
"""

from vulture.whitelist_utils import Whitelist

_ = Whitelist()


# --- explorer: third-party objects we configure by attribute ---
_.writelines  # the text-stream protocol: lines written this way pass the sanitiser too (cli/output.py)
_.syntax  # capstone reads the disassembler's syntax (capture/disassembly.py)
_.meta_optimizer_iterations  # TensorFlow reads the Grappler config proto (capture/tf_grappler_film.py)
_.disable_model_pruning  # TensorFlow reads the Grappler config proto (capture/tf_grappler_film.py)
_.disable_tfg_optimizer  # TensorFlow reads the Grappler config proto (capture/tf_grappler_film.py)
_.memory_optimization  # TensorFlow reads the Grappler config proto (capture/tf_grappler_film.py)

# --- explorer: fields of records written to a bundle's or a command's JSON ---
_.source_file  # HloMetadata: kept as the HLO text says it in the parsed module (tests/test_hlo_parser_fidelity.py)
_.source_line  # HloMetadata: kept as the HLO text says it in the parsed module (tests/test_hlo_parser_fidelity.py)
_.execution_thread  # HloComputation: kept as the HLO text says it in the parsed module (fidelity tests)
_.entry_computation_layout  # HloModule: kept as the HLO text says it in the parsed module (tests/test_hlo_parser.py)
_.ops_before  # GrapplerSummary: graph.json and `tensorweg inspect graph --json`
_.ops_after  # GrapplerSummary: graph.json and `tensorweg inspect graph --json`
_.live_ranges_source  # MemoryLevel: memory.json and `inspect memory --json` (xla or derived)
_.constant_memory_bytes  # PtxasReport: kernels.json and `inspect kernels --json` (docs/inspect-json.md)
_.transcendentals  # CostAnalysis: cost.json, XLA's cost analysis as it reports it
_.schema_version  # Manifest: manifest.json's format version (model/bundle.py checks the file's)
_.compile_seconds_known  # PassIndex: the passes' index.json (False: XLA's dump carries no per-pass time)
_.onnx_exporter  # TvmProgram: tvm.json, what turned the model into ONNX (provenance)
_.peak_memory_source  # TargetSummary: `tensorweg compare --json` (docs/inspect-json.md)
_.peak_dtype  # RooflineEstimate: which published peak the estimate used (tests/test_gpu_dump.py)
_.large  # SampleModel: marks benchmark-sized samples; tests/test_samples.py builds only the others

# --- explorer: public API that only tests call today, kept on purpose ---
_.parse_memory_report  # XLA's own memory report: the independent total tests check the buffer assignment by
_.total_bytes  # MemoryReport (parse_memory_report's result)
_.largest_first  # MemoryReport (parse_memory_report's result)
_.glossary_entry  # the glossary's lookup by any of an entry's names; the course tests check entries through it
_.is_documented  # the rule every course text's source must meet; tests/test_course_texts.py applies it
_.attribute_keys  # the keys of the attribute texts (content/*/attribute); explain does not show them yet
_.HLO_OPCODES  # XLA's opcode list as data: tests/test_course_texts.py asks a text for each
_.CUSTOM_CALL_TARGETS  # as HLO_OPCODES, for custom-call targets
_.FUSION_KINDS  # as HLO_OPCODES, for fusion kinds
_.CUSTOM_FUSION_KINDS  # as HLO_OPCODES, for custom fusion kinds
_.KERNEL_KINDS  # as HLO_OPCODES, for kernel kinds
_.ATTRIBUTES  # as HLO_OPCODES, for attributes
_.cited_addresses  # every address the course cites: scripts/check_cited_sources.py and tests/test_cited_sources.py
_.cited_path  # the repository path and revision an address names (the same two)
_.installed_copy  # where an installed package holds a cited file (the same two)
_.unsupported_lines  # what the explanation pane cannot draw: tests/test_course_text.py holds every content file to it
_.REQUIRED_FIGURES  # what a chip of each kind must publish: tests/test_target_table.py holds each row to it

# --- explorer: in modules another branch is rewriting; decided after that merge ---
_.mesh_lines  # views/mesh.py: the mesh view as lines; only tests call it
_.examples  # model/training.py BufferClass: never filled (dead): to delete there after that merge
_.bytes_of  # model/training.py StepMemory: only tests call it

# --- sample_models: builders named by `module:function` specs ---
_.nasnet_mobile  # `sample_models.architectures:nasnet_mobile` (bench/bench_index.py)
_.densenet121_64  # a `module:function` spec (tests/test_links_e2e.py)
_.resnet50v2_64  # a `module:function` spec (tests/test_links_e2e.py)
_.convnext_tiny_64  # a `module:function` spec (tests/test_links_e2e.py)
_.bilstm_seq2seq  # a `module:function` spec (tests/test_links_e2e.py)
_.mha_encoder_2  # a `module:function` spec (tests/test_links_e2e.py)

# --- screens: what Textual (and Pygments, grandalf, textual-serve) call by convention ---
_._layout_updates  # Textual's size cache key, bumped so new content gets a fresh height (memory_map.MapPane)
_.ALLOW_MAXIMIZE  # Textual: whether `Screen.maximize` may fill the screen with a widget (drawn_graph_view.DrawingPane)
_.BINDINGS  # Textual reads a class's key bindings (every screen and widget with keys)
_.COMPONENT_CLASSES  # Textual: the component classes a Line-API widget styles its rows with
_.DEFAULT_CSS  # Textual: a widget's own stylesheet
_.ENABLE_COMMAND_PALETTE  # Textual: the app's command palette switch (app.py)
_.GraphScreen  # app.py imports each level's screen class by name (SCREENS) (graph.py)
_.HORIZONTAL_BREAKPOINTS  # Textual: the app's width classes (app.py)
_.HloScreen  # app.py imports each level's screen class by name (SCREENS) (hlo.py)
_.KernelsScreen  # app.py imports each level's screen class by name (SCREENS) (kernels.py)
_.LayersScreen  # app.py imports each level's screen class by name (SCREENS) (layers.py)
_.MemoryMapScreen  # app.py imports each level's screen class by name (SCREENS) (memory_map.py)
_.OptimizedHloScreen  # app.py imports each level's screen class by name (SCREENS) (optimized_hlo.py)
_.TITLE  # Textual: the app's title in the header
_._bundle_loaded  # Textual message handler registered with @on (app.py)
_._bundle_open_failed  # Textual message handler registered with @on (opening.py)
_._bundle_opened  # Textual message handler registered with @on (opening.py)
_._capture_failed  # Textual message handler registered with @on (app.py)
_._capture_queued  # Textual message handler registered with @on (app.py)
_._kept_levels_read  # Textual message handler registered with @on (capturing.py)
_._rows_built  # Textual message handler registered with @on (level_screen.py)
_._chosen  # Textual message handler registered with @on (level_screen.py, tour.py)
_._filter_changed  # Textual message handler registered with @on (widgets/item_table.py)
_._filter_submitted  # Textual message handler registered with @on (widgets/item_table.py)
_._level_captured  # Textual message handler registered with @on (app.py)
_._level_started  # Textual message handler registered with @on (app.py)
_._on_click  # Textual event handler, private form (item_rows.py)
_._on_mouse_scroll_down  # Textual event handler, private form (pane_text.py)
_._on_mouse_scroll_up  # Textual event handler, private form (pane_text.py)
_._query_changed  # Textual message handler registered with @on (glossary.py)
_._row_selected  # Textual message handler registered with @on (widgets/item_table.py)
_._screen_factories  # every screen class, imported: the tests that look at all screens (app.py)
_._submitted  # Textual message handler registered with @on (tour.py)
_._targets_read  # Textual message handler registered with @on (opening.py)
_._capture_needed  # Textual message handler registered with @on (opening.py)
_._cached_bundle_found  # Textual message handler registered with @on (opening.py)
_._levels_warmed  # Textual message handler registered with @on (level_prebuild.py)
_._term_highlighted  # Textual message handler registered with @on (glossary.py)
_.action_answer  # Textual action: a key in BINDINGS runs it (tour.py)
_.action_back  # Textual action: a key in BINDINGS runs it (level_screen.py, memory_map.py)
_.action_cancel_capture  # Textual action: a key in BINDINGS runs it (app.py)
_.action_capture  # Textual action: a key in BINDINGS runs it (passes.py)
_.action_capture_meshes  # Textual action: a key in BINDINGS runs it (compare.py)
_.action_export_graph  # Textual action: a key in BINDINGS runs it (drawn_graph_screen.py, compare.py)
_.action_what_if  # Textual action: a key in BINDINGS runs it (app.py, compare.py)
_.action_next_variant  # Textual action: a key in BINDINGS runs it (variant_diff.py)
_.action_pick_fusion  # Textual action: a key in BINDINGS runs it (variant_diff.py)
_.action_open_fusion  # Textual action: a key in BINDINGS runs it (variant_diff.py)
_.action_capture_missing  # Textual action: a key in BINDINGS runs it (app.py)
_.action_close  # Textual action: a key in BINDINGS runs it (compare.py, mesh.py, passes.py)
_.action_compare_targets  # Textual action: a key in BINDINGS runs it (app.py)
_.action_cursor_down  # Textual action: a key in BINDINGS runs it (widgets/item_rows.py)
_.action_cursor_up  # Textual action: a key in BINDINGS runs it (widgets/item_rows.py)
_.action_descend  # Textual action: a key in BINDINGS runs it (level_screen.py)
_.action_filmstrip  # Textual action: a key in BINDINGS runs it (app.py)
_.action_filter  # Textual action: a key in BINDINGS runs it (level_screen.py)
_.action_first  # Textual action: a key in BINDINGS runs it (widgets/item_rows.py)
_.action_follow  # Textual action: a key in BINDINGS runs it (passes.py)
_.action_follow_operand  # Textual action: a key in BINDINGS runs it (code_screen.py)
_.action_glossary  # Textual action: a key in BINDINGS runs it (app.py)
_.action_goto_level  # Textual action: a key in BINDINGS runs it (app.py)
_.action_help  # Textual action: a key in BINDINGS runs it (app.py)
_.action_last  # Textual action: a key in BINDINGS runs it (widgets/item_rows.py)
_.action_leave  # Textual action: a key in BINDINGS runs it (tour.py)
_.action_mesh_view  # Textual action: a key in BINDINGS runs it (app.py)
_.action_move  # Textual action: a key in BINDINGS runs it (glossary.py, tour.py)
_.action_move_layer  # Textual action: a key in BINDINGS runs it (compare.py, mesh.py)
_.action_next_target  # Textual action: a key in BINDINGS runs it (app.py)
_.action_next_view  # Textual action: a key in BINDINGS runs it (kernels.py)
_.action_open_container  # Textual action: a key in BINDINGS runs it (layers.py)
_.action_page_down  # Textual action: a key in BINDINGS runs it (widgets/item_rows.py)
_.action_page_up  # Textual action: a key in BINDINGS runs it (widgets/item_rows.py)
_.action_radius  # Textual action: a key in BINDINGS runs it (drawn_graph_screen.py)
_.action_scroll_columns  # Textual action: a key in BINDINGS runs it (widgets/code_view.py)
_.action_scroll_lines  # Textual action: a key in BINDINGS runs it (widgets/code_view.py)
_.action_step  # Textual action: a key in BINDINGS runs it (passes.py, tour.py)
_.action_switch_film  # Textual action: a key in BINDINGS runs it (passes.py)
_.action_toggle_graph  # Textual action: a key in BINDINGS runs it (drawn_graph_screen.py)
_.action_toggle_language  # Textual action: a key in BINDINGS runs it (app.py)
_.action_toggle_maximize  # Textual action: a key in BINDINGS runs it (app.py)
_.action_tours  # Textual action: a key in BINDINGS runs it (app.py)
_.aliases  # Pygments: a lexer's names (hlo_lexer.py, sass_lexer.py)
_.animation_level  # Textual: the app's animation setting, set for deterministic frames (app.py)
_.border_subtitle  # Textual: the subtitle drawn in a widget's border (tour.py)
_.border_title  # Textual: the title drawn in a widget's border
_.can_focus  # Textual: whether a widget takes focus (tour.py)
_.check_action  # Textual asks it whether a binding is offered (layers.py)
_.compose  # Textual builds a screen or widget's children from it
_.control  # Textual: the widget a message is about, for @on selectors (item_rows.py)
_.cursor_blink  # Textual: inputs without a blinking cursor, for deterministic frames
_.discover  # Textual command-palette Provider hook (commands.py)
_.filenames  # Pygments: a lexer's file patterns (hlo_lexer.py)
_.line_count  # the code view's length, as Textual's widgets name it: tests read it (code_view.py)
_.lines_rendered  # rows drawn afresh: what tests/test_screens_scale.py counts (item_rows.py)
_.on_data_table_row_highlighted  # Textual message handler for DataTable.RowHighlighted (passes.py)
_.on_load  # Textual event handler (app.py)
_.apply  # Textual calls a LineFilter's apply on every line a widget draws (widgets/visible_text.py)
_.on_mount  # Textual event handler
_.on_mouse_scroll_down  # Textual event handler (item_rows.py)
_.on_mouse_scroll_up  # Textual event handler (item_rows.py)
_.on_mouse_down  # Textual event handler: a click on a footer key presses it (keys_footer.py)
_.keys_shown  # public: what the footer lists; tests check its words through it (tests/test_screens_startup.py)
_.ALLOW_SELECT  # Textual reads it: the footer's text is not selectable with the mouse (keys_footer.py)
_.on_resize  # Textual event handler
_.on_screen_resume  # Textual event handler
_.on_unmount  # Textual event handler
_.render_line  # Textual's Line API draws a widget row by row through it
_.row_count  # the rows' count, as Textual's DataTable names it: tests and benches wait on it (item_rows.py)
_.startup  # Textual command-palette Provider hook (commands.py)
_.terms  # the glossary list's terms: the Pilot tests' view of what it shows (glossary.py)
_.theme  # Textual: the app's theme, set explicitly (app.py)
_.tokens  # Pygments: a RegexLexer's rules (hlo_lexer.py, sass_lexer.py)
_.virtual_size  # Textual: a scroll view's scrollable size (item_rows.py)
_.watch_bundle  # Textual watcher of the reactive `bundle` (app.py)
_.watch_lang  # Textual watcher of the reactive `lang` (app.py)
_.watch_left  # Textual watcher of the reactive `left` (widgets/code_view.py)
_.watch_show_vertical_scrollbar  # Textual watcher of the reactive `show_vertical_scrollbar` (widgets/item_rows.py)
_.watch_target  # Textual watcher of the reactive `target` (app.py)
_.watch_top  # Textual watcher of the reactive `top` (widgets/code_view.py)
_.xspace  # grandalf reads the layout's spacing (graph_drawing.py)
_.yspace  # grandalf reads the layout's spacing (graph_drawing.py)
_.action_passport  # Textual action: a key in BINDINGS runs it (app.py)
_.action_source_view  # Textual action: a key in BINDINGS runs it (app.py)
_.get_default_screen  # Textual: the app's first screen (app.py: the one explorer screen)
_.on_ready  # Textual event handler: the first frame is drawn (app.py)
_.action_copy_or_quit  # Textual action: ctrl+c in BINDINGS (app.py)
_.built_levels  # the level views built so far: tests/test_screens_prebuild.py checks the build ahead
_.LayersView  # each level's view, imported by name when first shown (explorer_screen.VIEWS)
_.GraphView  # as above
_.HloView  # as above
_.OptimizedHloView  # as above
_.KernelsView  # as above
_.MemoryMapView  # as above
_.on_device_tabs_opened  # Textual message handler for DeviceTabs.Opened (widgets/device_pane.py)
_.on_session_event_posted  # Textual message handler for SessionEventPosted (session_work.py)
_.on_click  # Textual event handler (widgets/item_rows.py)
_.get_selection  # Textual: the text a mouse selection covers, for copying (widgets/pane_text.py)
_.selection_updated  # Textual: the selection changed, redraw it (widgets/pane_text.py)
_.overflow_y  # Textual style: set on a widget's styles, read by its layout (widgets/item_rows.py)
