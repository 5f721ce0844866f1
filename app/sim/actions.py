"""The simulation's actions as data (like ``app.actions``): id (the QAction's objectName), title, menu, key, and
the name of the ``QtSimulationUi`` method that runs it; overlays are checkable actions of their own menu."""

from __future__ import annotations

from app.actions import ActionSpec

SIM_MENU = "Simulation"
OVERLAY_MENU = "Overlays"

SIM_ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("sim.play", "&Play", SIM_MENU, "play", "F5", "Run the simulation", icon="play"),
    ActionSpec("sim.pause", "P&ause", SIM_MENU, "pause", "F6", "Pause the simulation", icon="pause"),
    ActionSpec("sim.step", "&Step", SIM_MENU, "step", "F10", "Advance one time step", icon="step"),
    ActionSpec("sim.reset", "&Reset", SIM_MENU, "reset", "Ctrl+F5", "Back to time 0 (rebuilds an edited scene)",
               icon="reset"),
    ActionSpec("sim.preview", "&Ghost Preview", SIM_MENU, "set_preview", "Ctrl+G",
               "Draw every agent's future path, recomputed as parameters change", checkable=True),
    ActionSpec("sim.compare", "Side by Si&de", SIM_MENU, "set_compare", "Ctrl+Shift+D",
               "Run a second method on the same routes, drawn in orange (MIRAN Figure 8)", checkable=True),
    ActionSpec("sim.add_agents", "Add Random &Agents", SIM_MENU, "add_agents", "Ctrl+Shift+N",
               "Add agents with random starts and goals (count and seed in the Simulation panel)"),
    ActionSpec("sim.sweep", "S&weep…", SIM_MENU, "sweep_dialog", None,
               "Run a small parameter sweep of this scene on a LocalCluster and plot it (miran sweep)"),
    ActionSpec("sim.open_recording", "&Open Recording…", SIM_MENU, "open_recording_dialog", None,
               "Replay a miran-paths file over this scene: the timeline slider moves it back and forth"),
    ActionSpec("sim.save_recording", "Save &Recording…", SIM_MENU, "save_recording_dialog", None,
               "Write the run shown (live or replayed) as a miran-paths file that Open Recording reads back"),
    ActionSpec("sim.export_json", "Export Paths (&JSON)…", SIM_MENU, "export_json_dialog", "Ctrl+E",
               "Write the walked paths as a miran-paths file (as miran simulate --out)"),
    ActionSpec("sim.export_csv", "Export Paths (&CSV)…", SIM_MENU, "export_csv_dialog", None,
               "Write the walked paths as CSV rows agent, profile, t, x, y"),
    ActionSpec("sim.export_pedpy", "Export Trajectories for &PedPy…", SIM_MENU, "export_pedpy_dialog", None,
               "Write the walked paths as PedPy trajectory text (id frame x y z, frame rate 1/dt)"),
    ActionSpec("sim.export_jupedsim", "Export Trajectories as JuPedSim S&QLite…", SIM_MENU,
               "export_jupedsim_dialog", None,
               "Write JuPedSim's SQLite trajectory file with the free space as walkable area (PedPy reads it)"),
    ActionSpec("sim.export_geojson", "Export Paths and Scene as &GeoJSON…", SIM_MENU, "export_geojson_dialog",
               None, "Write the walked paths and the scene as GeoJSON (File > Import reads it back)"),
    ActionSpec("sim.export_png", "Export &Viewport (PNG)…", SIM_MENU, "export_png_dialog", None,
               "Save a picture of the viewport"),
)

# Overlay name, title, shown at start, tip.
OVERLAYS: tuple[tuple[str, str, bool, str], ...] = (
    ("trails", "Trails", True, "Where the agents walked lately"),
    ("triangulation", "Triangulation", False, "The constrained triangulation the engine walks (exact visibility)"),
    ("ecm", "GVD / ECM by Clearance", False, "The medial axis coloured by clearance (built on first use)"),
    ("corridor", "Corridor", True, "The traced agent's corridor (IRM)"),
    ("intervals", "Route Window and Visible Intervals", True, "MIRAN 3.2: the window [r, sigma] and what is visible"),
    ("reference", "Reference Point", True, "MIRAN 3.1: the traced agent's reference point"),
    ("candidates", "Candidates with ω", True, "MIRAN 3.3: candidate attraction points, coloured and labelled by ω"),
    ("attraction", "Chosen Attraction Point", True, "The attraction point the traced agent heads for"),
    ("forces", "Forces", False, "F_s (green), F_b (red), F_o (purple) and the total (black), 1 m per m/s²"),
)
