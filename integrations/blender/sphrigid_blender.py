"""sphrigid for Blender (4.2 and later): play a sphrigid run in Blender, and render a frame.

Install: Edit > Preferences > Add-ons > Install from Disk, pick this file; then
File > Import > sphrigid run (manifest.json). From a script (bpy):

    import sphrigid_blender
    run = sphrigid_blender.load_run("out/dam_break")
    # {"root", "fluid", "surface", "bodies", "container", "shows", "problems"}

From the command line (renders one frame with Cycles on the CPU, the camera as close as keeps
the whole tank in the frame; the liquid's surface when the run has one, `sphrigid surface
RUN_DIR`, else its particles; `--points` for the particles):

    blender -b --python integrations/blender/sphrigid_blender.py -- out/dam_break \\
        --render dam_break.png --frame 30 --resolution 960 540 [--points]

What load_run builds:
- an empty `root` that turns sphrigid's y-up data into Blender's z-up (a +90 degree turn
  about x); everything else is its child, so positions in root's frame equal the files';
- one fluid object whose geometry follows the scene frame (frame f shows manifest.frames[f]):
  points of radius `particle_radius` (geometry nodes, Mesh to Points), with the point
  attributes `velocity` (FLOAT_VECTOR, read by motion blur), `density`, `speed` and `id`
  (INT), and a material coloured by speed;
- when the manifest's frames list a `surface` (surface/surface_NNNNN.ply): one surface object
  whose mesh is swapped at every frame change (its topology changes from frame to frame),
  smooth, with the file's normals as custom normals, a point attribute `velocity` (motion
  blur) and a water material (Principled BSDF, transmission 1, IOR 1.33, roughness 0.02, and
  a faint blue-green Volume Absorption of density 1.2 / the container's smallest size in m, or
  the particles' when there is no container, so that the liquid's depth reads); it is shown
  and the particles hidden, unless load_run(..., points=True); a frame without a surface
  shows none;
- one object per body whose mesh follows the frame (rigid/<body>_NNNNN.ply);
- when the scene echo has a `container`: a cut-away tank, its floor and the two walls far from
  the render camera (x = min, z = min), so that the camera sees in;
- the scene's fps and frame range from the manifest, frame 0 being the first file.
Missing files are reported in one line (Blender's report, or stderr), and the rest loads.
A hidden part (the particles when the surface shows, or the other way) is not reloaded at frame
changes: after showing it (`hide_viewport`/`hide_render` off), change the frame once.
"""

import json
import math
import os
import sys

import bpy
import numpy as np

bl_info = {
    "name": "sphrigid run importer",
    "author": "sphrigid",
    "version": (0, 1, 0),
    "blender": (4, 2, 0),
    "location": "File > Import > sphrigid run (manifest.json)",
    "description": "Plays a sphrigid run: liquid surface or points with velocity, bodies, tank",
    "category": "Import-Export",
}

_PLY_TYPES = {"float": "<f4", "double": "<f8", "int": "<i4", "uint": "<u4", "uchar": "u1",
              "char": "i1", "short": "<i2", "ushort": "<u2"}


def read_ply(path):
    """A binary little-endian PLY as written by sphrigid: (vertex record array, triangles or
    None)."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    lines = data[:end].decode("ascii").splitlines()
    if lines[1] != "format binary_little_endian 1.0":
        raise ValueError(f"{path}: not a binary little-endian PLY")
    props, n_vert, n_face, element = [], 0, 0, None
    for line in lines:
        w = line.split()
        if w[0] == "element":
            element = w[1]
            if element == "vertex":
                n_vert = int(w[2])
            elif element == "face":
                n_face = int(w[2])
        elif w[0] == "property" and element == "vertex":
            props.append((w[2], _PLY_TYPES[w[1]]))
    verts = np.frombuffer(data, dtype=np.dtype(props), count=n_vert, offset=end)
    tris = None
    if n_face:
        rec = np.dtype([("n", "u1"), ("v", "<i4", 3)])
        tris = np.frombuffer(data, dtype=rec, count=n_face, offset=end + verts.nbytes)["v"]
    return verts, tris


def read_manifest(run_dir):
    """The run's manifest.json, or a ValueError with one line naming the file and the fix."""
    path = os.path.join(run_dir, "manifest.json")
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read the manifest ({e}); fix: pick the output "
                         "directory of a finished `sphrigid run` (the one holding manifest.json)")
    if not m.get("frames"):
        raise ValueError(f"{path}: the manifest lists no frames; fix: rerun the scene")
    return m


def _frame_entry(m, frame):
    """The manifest entry shown at scene frame `frame` (held at the ends)."""
    frames = m["frames"]
    k = min(max(int(frame), 0), len(frames) - 1)
    return frames[k]


def _set_fluid(mesh, path):
    """Replace `mesh`'s points with the particles of the fluid PLY at `path`."""
    v, _ = read_ply(path)
    n = len(v)
    mesh.clear_geometry()
    mesh.vertices.add(n)
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float32)
    vel = np.stack([v["vx"], v["vy"], v["vz"]], axis=1).astype(np.float32)
    mesh.vertices.foreach_set("co", xyz.ravel())
    attrs = [("velocity", "FLOAT_VECTOR", "vector", vel.ravel()),
             ("density", "FLOAT", "value", v["density"].astype(np.float32)),
             ("speed", "FLOAT", "value", np.linalg.norm(vel, axis=1).astype(np.float32)),
             ("id", "INT", "value", v["id"].astype(np.int32))]
    for name, kind, field, values in attrs:
        a = mesh.attributes.get(name) or mesh.attributes.new(name, kind, "POINT")
        a.data.foreach_set(field, values)
    mesh.update()


def _set_surface(mesh, path):
    """Replace `mesh`'s geometry with the liquid surface PLY at `path` (triangles, smooth, the
    file's normals as custom normals, point attribute `velocity`)."""
    v, tris = read_ply(path)
    n = len(v)
    tris = np.zeros((0, 3), dtype=np.int32) if tris is None else tris
    t = len(tris)
    mesh.clear_geometry()
    mesh.vertices.add(n)
    mesh.loops.add(3 * t)
    mesh.polygons.add(t)
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float32)
    mesh.vertices.foreach_set("co", xyz.ravel())
    mesh.loops.foreach_set("vertex_index", np.ascontiguousarray(tris, dtype=np.int32).ravel())
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * t, 3, dtype=np.int32))
    mesh.polygons.foreach_set("use_smooth", np.ones(t, dtype=bool))
    mesh.update()
    if n and t:
        normals = np.stack([v["nx"], v["ny"], v["nz"]], axis=1).astype(np.float32)
        mesh.normals_split_custom_set_from_vertices(normals)
    vel = np.stack([v["vx"], v["vy"], v["vz"]], axis=1).astype(np.float32)
    a = mesh.attributes.get("velocity") or mesh.attributes.new("velocity", "FLOAT_VECTOR",
                                                               "POINT")
    a.data.foreach_set("vector", vel.ravel())
    mesh.update()


def _set_body(mesh, path):
    """Replace `mesh`'s geometry with the body mesh PLY at `path`."""
    v, tris = read_ply(path)
    mesh.clear_geometry()
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float64)
    mesh.from_pydata(xyz.tolist(), [], tris.tolist() if tris is not None else [])
    mesh.update()


def _show_frame(scene, frame):
    """Load frame `frame` into every object that load_run made."""
    manifests = {}
    for obj in scene.objects:
        run_dir = obj.get("sphrigid_run")
        if run_dir is None or obj.type != "MESH":
            continue
        if run_dir not in manifests:
            try:
                manifests[run_dir] = read_manifest(run_dir)
            except ValueError:
                continue
        if obj.hide_render and obj.hide_viewport:
            continue  # hidden by load_run (points or surface not shown): not reloaded
        entry = _frame_entry(manifests[run_dir], frame)
        body = obj.get("sphrigid_body", "")
        if obj.get("sphrigid_surface"):
            rel, setter = entry.get("surface"), _set_surface
            if rel is None:
                obj.data.clear_geometry()  # this frame has no surface: show none
                continue
        elif body:
            rel, setter = entry.get("rigid", {}).get(body), _set_body
        else:
            rel, setter = entry["fluid"], _set_fluid
        if rel is None:
            continue
        path = os.path.join(run_dir, rel)
        if not os.path.exists(path):
            continue  # load_run reported it; the object keeps its last geometry
        setter(obj.data, path)


@bpy.app.handlers.persistent
def _on_frame_change(scene, *_):
    _show_frame(scene, scene.frame_current)


def _speed_material(max_speed):
    """A material coloured by the point attribute `speed`, blue (still) to yellow (max)."""
    mat = bpy.data.materials.new("sphrigid_speed")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_name = "speed"
    ramp_in = nodes.new("ShaderNodeMapRange")
    ramp_in.inputs["From Max"].default_value = max(max_speed, 1e-6)
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (0.05, 0.15, 0.6, 1.0)
    ramp.color_ramp.elements[1].color = (1.0, 0.85, 0.1, 1.0)
    links.new(attr.outputs["Fac"], ramp_in.inputs["Value"])
    links.new(ramp_in.outputs["Result"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.3
    return mat


def _water_material(size):
    """Clear water: Principled BSDF with transmission 1, IOR 1.33 and roughness 0.02, and a
    blue-green Volume Absorption of density 1.2 / `size` (m; the liquid's extent) on the
    output's Volume: the deepest water is faintly tinted, not grey glass."""
    mat = bpy.data.materials.new("sphrigid water")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    absorb = nodes.new("ShaderNodeVolumeAbsorption")
    absorb.inputs["Color"].default_value = (0.45, 0.75, 0.9, 1.0)
    absorb.inputs["Density"].default_value = 1.2 / max(size, 1e-6)
    output = next(n for n in nodes if n.type == "OUTPUT_MATERIAL")
    links.new(absorb.outputs["Volume"], output.inputs["Volume"])
    bsdf.inputs["Base Color"].default_value = (0.8, 0.92, 1.0, 1.0)
    bsdf.inputs["Transmission Weight"].default_value = 1.0
    bsdf.inputs["IOR"].default_value = 1.33
    bsdf.inputs["Roughness"].default_value = 0.02
    mat.diffuse_color = (0.5, 0.7, 0.9, 0.5)  # the viewport's solid colour
    return mat


def _tank_material():
    """The tank's inside: a light grey checker (it shows the refraction through the water)."""
    mat = bpy.data.materials.new("sphrigid tank")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    checker = nodes.new("ShaderNodeTexChecker")
    checker.inputs["Scale"].default_value = 8.0
    checker.inputs["Color1"].default_value = (0.85, 0.85, 0.85, 1.0)
    checker.inputs["Color2"].default_value = (0.45, 0.5, 0.55, 1.0)
    coords = nodes.new("ShaderNodeTexCoord")
    links.new(coords.outputs["Generated"], checker.inputs["Vector"])
    links.new(checker.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.5
    return mat


def _tank_object(name, container, parent):
    """A cut-away tank of the container box (data coordinates, child of `parent`): the floor
    (y = min) and the walls x = min and z = min, open towards the camera of setup_render. They
    stand 0.1% of the box's size outside it, so that the liquid's surface, which lies on the
    walls where the liquid touches them, does not coincide with them (a ray leaving the water
    there would start on the wall)."""
    lo, hi = np.array(container["min"], float), np.array(container["max"], float)
    gap = 1e-3 * float((hi - lo).max())
    (x0, y0, z0), (x1, y1, z1) = lo - gap, hi
    verts = [(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1),
             (x0, y1, z0), (x1, y1, z0), (x0, y1, z1)]
    faces = [(0, 3, 2, 1),  # floor, facing +y
             (0, 1, 5, 4),  # back wall z = min, facing +z
             (0, 4, 6, 3)]  # side wall x = min, facing +x
    mesh = bpy.data.meshes.new("sphrigid_tank")
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    mesh.materials.append(_tank_material())
    obj = bpy.data.objects.new(f"{name} tank", mesh)
    obj.parent = parent
    bpy.context.scene.collection.objects.link(obj)
    return obj


def _points_modifier(obj, radius, material):
    """Geometry nodes on `obj`: Mesh to Points with `radius`, then `material`."""
    tree = bpy.data.node_groups.new("sphrigid_points", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    n_in = tree.nodes.new("NodeGroupInput")
    n_out = tree.nodes.new("NodeGroupOutput")
    to_points = tree.nodes.new("GeometryNodeMeshToPoints")
    to_points.inputs["Radius"].default_value = radius
    set_mat = tree.nodes.new("GeometryNodeSetMaterial")
    set_mat.inputs["Material"].default_value = material
    tree.links.new(n_in.outputs[0], to_points.inputs["Mesh"])
    tree.links.new(to_points.outputs["Points"], set_mat.inputs["Geometry"])
    tree.links.new(set_mat.outputs["Geometry"], n_out.inputs[0])
    mod = obj.modifiers.new("sphrigid points", "NODES")
    mod.node_group = tree


def load_run(run_dir, report=None, points=False):
    """Load the sphrigid run in `run_dir` into the current scene; returns
    {"root": empty, "fluid": object, "surface": object or None, "bodies": {name: object},
    "container": tank object or None, "shows": "surface" or "points", "problems": [str]}.
    The liquid shows as its surface when the run has one and `points` is false, else as its
    particles. `report(line)` is told in one line about missing files (default: stderr)."""
    run_dir = os.path.abspath(run_dir)
    m = read_manifest(run_dir)
    scene = bpy.context.scene
    fps = float(m["fps"])
    scene.render.fps = max(1, round(fps))
    scene.render.fps_base = scene.render.fps / fps
    scene.frame_start = m["frames"][0]["index"]
    scene.frame_end = m["frames"][-1]["index"]

    missing = []
    for f in m["frames"]:
        for rel in [f["fluid"], *f.get("rigid", {}).values(), *([f["surface"]] if f.get("surface")
                                                                  else [])]:
            if not os.path.exists(os.path.join(run_dir, rel)):
                missing.append(rel)
    problems = []
    if missing:
        problems.append(f"{run_dir}: {len(missing)} file(s) the manifest lists are missing "
                        f"(first {missing[0]}); they show the previous frame; fix: rerun the scene")
    if not m.get("complete", True):
        problems.append(f"{run_dir}: the run is incomplete (frames 0..{scene.frame_end} "
                        "written); fix: rerun the scene to finish it")
    if problems:
        (report or (lambda line: print(line, file=sys.stderr)))("; ".join(problems))

    name = os.path.basename(run_dir.rstrip(os.sep)) or "run"
    root = bpy.data.objects.new(f"sphrigid {name}", None)
    root.rotation_euler = (math.pi / 2, 0.0, 0.0)  # data y-up -> Blender z-up
    scene.collection.objects.link(root)

    def child(obj_name, mesh_name, body=""):
        obj = bpy.data.objects.new(obj_name, bpy.data.meshes.new(mesh_name))
        obj["sphrigid_run"] = run_dir
        obj["sphrigid_body"] = body
        obj.parent = root
        scene.collection.objects.link(obj)
        return obj

    fluid = child(f"{name} fluid", "sphrigid_fluid")
    max_speed, extent = 0.0, 0.0
    for f in m["frames"][:: max(1, len(m["frames"]) // 8)] + [m["frames"][-1]]:
        p = os.path.join(run_dir, f["fluid"])
        if os.path.exists(p):
            v, _ = read_ply(p)
            speed = np.sqrt(v["vx"] ** 2 + v["vy"] ** 2 + v["vz"] ** 2)
            max_speed = max(max_speed, float(speed.max()) if len(speed) else 0.0)
            if len(v):
                xyz = np.stack([v["x"], v["y"], v["z"]], axis=1)
                extent = max(extent, float((xyz.max(axis=0) - xyz.min(axis=0)).max()))
    _points_modifier(fluid, float(m["particle_radius"]), _speed_material(max_speed))

    container = (m.get("scene") or {}).get("container")
    surface = None
    if any(f.get("surface") for f in m["frames"]):
        surface = child(f"{name} surface", "sphrigid_surface")
        surface["sphrigid_surface"] = True
        if container:
            # The tank's smallest size: the depth seen across, so a tank of any size is tinted alike.
            extent = float((np.array(container["max"]) - np.array(container["min"])).min())
        surface.data.materials.append(_water_material(extent or 1.0))
    shows = "surface" if surface is not None and not points else "points"
    hidden = surface if shows == "points" else fluid
    if hidden is not None:
        hidden.hide_render = hidden.hide_viewport = True

    tank = _tank_object(name, container, root) if container else None

    bodies = {}
    names = sorted({b for f in m["frames"] for b in f.get("rigid", {})})
    for i, body in enumerate(names):
        obj = child(f"{name} {body}", f"sphrigid_{body}", body)
        mat = bpy.data.materials.new(f"sphrigid_{body}")
        mat.diffuse_color = (0.8, 0.35 + 0.1 * i, 0.2, 1.0)
        mat.use_nodes = True
        mat.node_tree.nodes.get("Principled BSDF").inputs["Base Color"].default_value = \
            mat.diffuse_color
        obj.data.materials.append(mat)
        bodies[body] = obj

    if _on_frame_change not in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.append(_on_frame_change)
    _show_frame(scene, scene.frame_current)
    return {"root": root, "fluid": fluid, "surface": surface, "bodies": bodies,
            "container": tank, "shows": shows, "problems": problems}


def _to_blender(p):
    """A point of the data (y-up) in Blender's world (z-up) under load_run's root."""
    return (p[0], -p[2], p[1])


def _fit_camera(scene, cam, corners, center, direction, margin=(0.04, 0.05)):
    """Turn `cam` to look at `center` from `direction` (Blender world, towards the camera)
    and place it as close as keeps every point of `corners` in the frame, `margin` (a fraction
    of the frame's width and height) inside its edges: doubling, then bisecting the distance,
    with the points projected by world_to_camera_view (the oblique view and the box's depth
    included)."""
    from bpy_extras.object_utils import world_to_camera_view

    cam.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    mx, my = margin

    def fits(dist):
        cam.location = center + direction * dist
        bpy.context.view_layer.update()
        return all(mx < p.x < 1 - mx and my < p.y < 1 - my and p.z > 0
                   for p in (world_to_camera_view(scene, cam, q) for q in corners))

    reach = max((q - center).length for q in corners) or 1e-3
    near, far = 0.0, reach
    while not fits(far) and far < 1e4 * reach:
        near, far = far, 2 * far
    for _ in range(30):
        mid = (near + far) / 2
        near, far = (near, mid) if fits(mid) else (mid, far)
    cam.location = center + direction * far
    bpy.context.view_layer.update()


def setup_render(run, manifest, resolution=(960, 540), samples=16, box=None, direction=None):
    """Camera framed on the container (or the shown liquid's bounds), a floor (just under the
    tank's when load_run drew one), lights and Cycles on the CPU; with the surface shown, 32
    light bounces (a thin sheet of water stacks many interfaces). The camera looks at the box's
    centre from `direction` (data space, y up; default (0.3, 0.35, 1): in front of the tank's
    open side, to the right and above) as close as keeps the box's 8 corners in the frame.
    `box`: ((x0, y0, z0), (x1, y1, z1)) in data space, the box to frame instead."""
    from mathutils import Vector

    scene = bpy.context.scene
    container = (manifest.get("scene") or {}).get("container")
    if container:
        lo, hi = container["min"], container["max"]
    else:
        shown = run["surface"] if run.get("shows") == "surface" else run["fluid"]
        co = np.array([v.co[:] for v in shown.data.vertices] or [[0, 0, 0]])
        lo, hi = co.min(axis=0).tolist(), (co.max(axis=0) + 1e-3).tolist()
    lo_b, hi_b = Vector(_to_blender(lo)), Vector(_to_blender(hi))
    bmin = Vector(map(min, lo_b, hi_b))
    bmax = Vector(map(max, lo_b, hi_b))
    center = (bmin + bmax) / 2
    size = bmax - bmin

    cam_data = bpy.data.cameras.new("sphrigid camera")
    cam_data.lens = 35
    cam = bpy.data.objects.new("sphrigid camera", cam_data)
    scene.collection.objects.link(cam)
    scene.camera = cam
    w, h = resolution
    scene.render.resolution_x, scene.render.resolution_y = w, h
    scene.render.resolution_percentage = 100
    flo, fhi = (lo, hi) if box is None else box
    corners = [Vector(_to_blender((x, y, z))) for x in (flo[0], fhi[0])
               for y in (flo[1], fhi[1]) for z in (flo[2], fhi[2])]
    view = Vector(_to_blender(direction or (0.3, 0.35, 1.0))).normalized()
    _fit_camera(scene, cam, corners, sum(corners, Vector()) / 8, view)

    ground = bmin.z - (2e-3 * max(size) if run.get("container") else 0.0)  # under the tank
    bpy.ops.mesh.primitive_plane_add(size=max(size.x, size.y) * 4,
                                     location=(center.x, center.y, ground))
    floor = bpy.context.active_object
    floor.name = "sphrigid floor"
    fmat = bpy.data.materials.new("sphrigid floor")
    fmat.use_nodes = True
    fmat.node_tree.nodes.get("Principled BSDF").inputs["Base Color"].default_value = (0.6, 0.6, 0.6, 1)
    floor.data.materials.append(fmat)

    sun = bpy.data.objects.new("sphrigid sun", bpy.data.lights.new("sphrigid sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    scene.collection.objects.link(sun)
    world = scene.world or bpy.data.worlds.new("sphrigid world")
    scene.world = world
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.7, 0.75, 0.8, 1)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.6

    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    # Clear water is noisy in few samples (the sun's light through it): denoise it.
    scene.cycles.use_denoising = run.get("shows") == "surface"
    if run.get("shows") == "surface":
        # Light through a thin sheet or a drop crosses many interfaces: without enough
        # bounces it comes out black.
        scene.cycles.max_bounces = scene.cycles.transmission_bounces = 32
    scene.render.image_settings.file_format = "PNG"
    scene.render.use_lock_interface = True  # the frame handler swaps meshes while rendering


def main(argv):
    """`RUN_DIR [--render OUT.png] [--frame N] [--resolution W H] [--samples S] [--points]`:
    load the run into an empty scene and, with --render, render frame N (Cycles, CPU): the
    liquid's surface when the run has one (else its particles, with a note on stderr), or its
    particles with --points. Returns 0, or 2 when the run could not be read or files were
    missing (after loading and rendering the rest)."""
    import argparse

    ap = argparse.ArgumentParser(prog="sphrigid_blender.py")
    ap.add_argument("run_dir")
    ap.add_argument("--render", metavar="OUT.png")
    ap.add_argument("--frame", type=int, default=0)
    ap.add_argument("--resolution", type=int, nargs=2, default=(960, 540), metavar=("W", "H"))
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--points", action="store_true",
                    help="show the liquid as particles even when the run has a surface")
    args = ap.parse_args(argv)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        manifest = read_manifest(args.run_dir)
        run = load_run(args.run_dir, points=args.points)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if run["surface"] is None and not args.points:
        print(f"{args.run_dir}: the run has no liquid surface, showing its particles; "
              f"for the surface: sphrigid surface {args.run_dir}", file=sys.stderr)
    bpy.context.scene.frame_set(args.frame)
    if args.render:
        setup_render(run, manifest, tuple(args.resolution), args.samples)
        bpy.context.scene.render.filepath = os.path.abspath(args.render)
        bpy.ops.render.render(write_still=True)
        print(f"rendered frame {args.frame} to {args.render}")
    return 2 if run["problems"] else 0


class ImportSphrigidRun(bpy.types.Operator):
    """Load a sphrigid run: liquid surface (or points), bodies, tank, fps and frame range"""

    bl_idname = "import_scene.sphrigid_run"
    bl_label = "sphrigid run (manifest.json)"
    bl_options = {"REGISTER", "UNDO"}

    filepath: bpy.props.StringProperty(subtype="FILE_PATH")
    filter_glob: bpy.props.StringProperty(default="manifest.json", options={"HIDDEN"})
    points: bpy.props.BoolProperty(
        name="Particles", default=False,
        description="Show the liquid as particles even when the run has a surface")

    def execute(self, context):
        run_dir = os.path.dirname(self.filepath) if os.path.isfile(self.filepath) else self.filepath
        try:
            load_run(run_dir, report=lambda line: self.report({"WARNING"}, line),
                     points=self.points)
        except ValueError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"FINISHED"}

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}


def _menu(self, context):
    self.layout.operator(ImportSphrigidRun.bl_idname, text=ImportSphrigidRun.bl_label)


def register():
    bpy.utils.register_class(ImportSphrigidRun)
    bpy.types.TOPBAR_MT_file_import.append(_menu)
    if _on_frame_change not in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.append(_on_frame_change)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(_menu)
    bpy.utils.unregister_class(ImportSphrigidRun)
    if _on_frame_change in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.remove(_on_frame_change)


if __name__ == "__main__":
    # blender -b --python sphrigid_blender.py -- RUN_DIR ...; or python sphrigid_blender.py RUN_DIR
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    sys.exit(main(args))
