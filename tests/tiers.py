"""The test tiers' lists (tests/conftest.py applies them; docs: Development, tests)."""

from pathlib import Path

HERE = Path(__file__).resolve().parent

# Paths relative to tests/, a file (every test in it) or a file::test (every parametrisation of that test).
PERF = {
    "core/bench/test_bench.py::test_quick_navmesh_section_json",
    "app/test_sim_live.py::test_event_loop_stays_responsive_with_5000_agents",
    "app/test_sim_display.py::test_the_engine_threads_yield_the_cpu_to_the_ui_thread",
}
SLOW = {
    "test_core_without_qt.py",
    "core/bench/test_bench_table1.py",
    "core/test_jitcache.py",
    "core/test_jitprecompile.py",
    "app/test_jit_manifest.py",
    "app/test_sim_warmup_workers.py",
    "core/sweep/test_sweep_run.py",
    "core/reproduce/test_reproduce.py",
    "core/sim/test_arrival_stress.py",
    "core/sim/test_cli_simulate.py",
    "core/sim/test_crowd.py::test_a_crowd_of_a_thousand_never_enters_an_obstacle",
    "core/sim/test_threads.py::test_a_respawning_crowd_walks_the_same_bytes_on_one_two_and_three_threads",
    "core/sim/test_threads.py::test_the_thread_count_can_change_between_steps_without_changing_the_paths",
    "core/cli/test_fuzz.py",
    "core/cli/test_hostile_corpus.py",
    "core/importers/test_import_cli.py",
    "core/scene/test_scene_cli.py",
    "core/export/test_trajectory_exports.py::test_miran_export_writes_every_format_and_refuses_bad_input",
    "core/ecm/test_annotation.py::test_every_exact_medial_axis_point_is_near_the_map",
    "core/importers/test_import_clean.py::test_any_drawing_gives_a_valid_scene_or_names_the_element",
    "core/ecm/test_sites.py::test_a_comb_at_the_vertex_limit_is_cut_into_convex_pieces_that_tile_it",
    "core/ecm/test_render_budget.py::test_a_comb_of_sub_pixel_teeth_is_refused_at_4096_px",
}
