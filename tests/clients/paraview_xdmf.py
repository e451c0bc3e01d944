# SPDX-License-Identifier: MIT
"""ParaView opens what `vsim run` writes: run by pvpython (or pvbatch)
--force-offscreen-rendering from tests/clients/run.sh.

    pvpython --force-offscreen-rendering tests/clients/paraview_xdmf.py VSIM ROOT WORKDIR

For a cloth, a rope, a torn cloth, a cloth on a sphere and a plane, one on a
mesh collider, rigid dice on a box, a stack of rigid boxes (rigid bodies
only: no /particles/all) and one rigid body of each shape: the .xmf beside the .h5 opens in the
XDMF reader, has one timestep per recorded frame at the file's times, every
frame's points are the positions h5py reads (bit for bit), the torn cloth's
links carry `alive` equal to /connectivity/alive, the rigid grid's points
and orientations are /particles/rigid's, the rigid_surface grid's points are
/particles/rigid_surface's with the triangles of /connectivity/rigid_triangles
(12 per box, 80 per sphere, 144 per capsule), each collider of /world/colliders
is a grid at every frame (a mesh its vertices and triangles, a box its 8
corners, a sphere a surface within its radius, a plane a quad on it), and a
frame renders to a PNG that is not blank.  Exit 0 when all hold; an AssertionError otherwise."""
import os
import subprocess
import sys

import h5py
import numpy as np
from paraview import servermanager as sm
from paraview.simple import (GetActiveViewOrCreate, Render, ResetSession, SaveScreenshot,
                             Show, XDMFReader)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader

vsim, root, work = sys.argv[1:4]
scenes = [("cloth", "configs/cloth_hanging.yaml", ["--frames", "12"]),
          ("rope", "configs/rope_pendulum.yaml", ["--frames", "12"]),
          ("torn", "configs/torn_cloth.yaml", ["--frames", "30"]),
          ("sphere", "configs/cloth_sphere.yaml", ["--frames", "3"]),
          ("drape", "configs/mesh_drape.yaml", ["--frames", "3"]),
          ("dice", "configs/rigid_dice.yaml", ["--frames", "6"]),
          ("stack", "configs/rigid_stack.yaml", ["--frames", "6"]),
          ("shapes", "tests/data/rigid_shapes.yaml", [])]
TRIANGLES_PER_SHAPE = [12, 80, 144]  # box, sphere, capsule
VERTICES_PER_SHAPE = [8, 42, 74]


def blocks(data):
    """The leaves of the reader's output, by grid name."""
    out = {}
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        # the reader names later frames' grids "links[7]": the grid is the part before
        grid = it.GetCurrentMetaData().Get(data.NAME()).split("[")[0]
        out[grid] = it.GetCurrentDataObject()
        it.GoToNextItem()
    return out


for name, scene, opts in scenes:
    h5 = os.path.join(work, name + ".h5")
    xmf = os.path.join(work, name + ".xmf")
    # the sidecar (and the rigid surfaces it draws) is written on demand
    subprocess.run([vsim, "run", os.path.join(root, scene), "-o", h5, "-f", "-q",
                    "--set", "output.xdmf=true"] + opts, check=True)
    assert os.path.exists(xmf), "vsim run wrote no " + xmf
    with h5py.File(h5, "r") as f:
        # a file of rigid bodies only has no /particles/all
        parts = "/particles/all" if "/particles/all" in f else "/particles/rigid"
        pos = f[parts + "/position/value"][:]
        times = f[parts + "/position/time"][:]
        alive = f["/connectivity/alive/value"][:] if "/connectivity/alive" in f else None
        ntri = f["/connectivity/triangles"].shape[0] if "/connectivity/triangles" in f else 0
        rigid = "/particles/rigid" in f
        if rigid:
            rpos = f["/particles/rigid/position/value"][:]
            rq = f["/particles/rigid/orientation/value"][:]
            rsize = f["/particles/rigid/size"][:]
            shapes = f["/particles/rigid/shape"][:]
            spos = f["/particles/rigid_surface/position/value"][:]
            sbody = f["/particles/rigid_surface/body"][:]
            stri = f["/connectivity/rigid_triangles"][:]
            assert stri.shape[0] == sum(TRIANGLES_PER_SHAPE[s] for s in shapes), name
            assert spos.shape[1] == sum(VERTICES_PER_SHAPE[s] for s in shapes), name
        coll = {}
        for i, g in f["/world/colliders"].items() if "/world/colliders" in f else []:
            c = dict(g.attrs)
            c["kind"] = c["kind"].decode() if isinstance(c["kind"], bytes) else str(c["kind"])
            if c["kind"] == "mesh":
                c["vertices"] = g["vertices"][:]
                c["ntri"] = g["triangles"].shape[0]
            coll["collider %s %s" % (i, c["kind"])] = c
    # open from another directory: the .xmf names the .h5 relative to itself
    os.chdir("/")
    r = XDMFReader(FileNames=[xmf])
    r.UpdatePipelineInformation()
    ts = list(r.TimestepValues)
    assert len(ts) == pos.shape[0], "%s: %d timesteps, %d frames" % (name, len(ts), pos.shape[0])
    assert np.allclose(ts, times, rtol=0, atol=1e-12), name + ": times"
    for k, t in enumerate(ts):
        r.UpdatePipeline(t)
        b = blocks(sm.Fetch(r))
        assert b, name + ": no grids"
        seen = set()
        for grid, ds in b.items():
            pts = vtk_to_numpy(ds.GetPoints().GetData())
            where = "%s frame %d grid %s" % (name, k, grid)
            if grid == "rigid":
                assert np.array_equal(pts, rpos[k]), where + ": rigid positions"
                q = vtk_to_numpy(ds.GetPointData().GetArray("orientation"))
                assert np.array_equal(q, rq[k]), where + ": orientation"
                s = vtk_to_numpy(ds.GetPointData().GetArray("size"))
                assert np.array_equal(s, rsize), where + ": size"
                continue
            if grid == "rigid_surface":
                assert np.array_equal(pts, spos[k]), where + ": surface vertices"
                assert ds.GetNumberOfCells() == stri.shape[0], where + ": cells"
                cells = vtk_to_numpy(ds.GetPolys().GetConnectivityArray() if ds.IsA("vtkPolyData")
                                     else ds.GetCells().GetConnectivityArray())
                assert np.array_equal(cells.reshape(-1, 3), stri), where + ": triangles"
                body = vtk_to_numpy(ds.GetPointData().GetArray("body"))
                assert np.array_equal(body, sbody), where + ": body"
                continue
            if grid in coll:
                c = coll[grid]
                if c["kind"] == "mesh":
                    assert np.array_equal(pts, c["vertices"]), where
                    assert ds.GetNumberOfCells() == c["ntri"], where
                elif c["kind"] in ("box", "bounds"):
                    assert np.array_equal(pts.min(0), c["min"]), where
                    assert np.array_equal(pts.max(0), c["max"]), where
                    assert ds.GetNumberOfCells() == 1, where
                elif c["kind"] == "sphere":
                    d = np.linalg.norm(pts - c["center"], axis=1)
                    assert np.allclose(d, c["radius"], rtol=1e-12, atol=0), where
                    assert ds.GetNumberOfCells() > 100, where
                elif c["kind"] == "plane":
                    n = c["normal"] / np.linalg.norm(c["normal"])
                    assert np.allclose((pts - c["point"]) @ n, 0, atol=1e-12), where
                    assert ds.GetNumberOfCells() == 1, where
                seen.add(grid)
                continue
            assert np.array_equal(pts, pos[k]), "%s frame %d grid %s: positions" % (name, k, grid)
        assert seen == set(coll), "%s frame %d: colliders %s, want %s" % (name, k, seen, set(coll))
        assert rigid == ("rigid" in b), "%s frame %d: rigid grid" % (name, k)
        assert rigid == ("rigid_surface" in b), "%s frame %d: rigid_surface grid" % (name, k)
        if ntri:
            assert b["triangles"].GetNumberOfCells() == ntri, name + ": triangles"
        if alive is not None:
            a = vtk_to_numpy(b["links"].GetCellData().GetArray("alive"))
            assert np.array_equal(a, alive[k]), "%s frame %d: alive" % (name, k)
    if alive is not None:
        assert alive[-1].min() == 0, "the torn cloth tore nothing"
    view = GetActiveViewOrCreate("RenderView")
    Show(r, view)
    view.ViewTime = ts[-1]
    view.ResetCamera()
    Render(view)
    png = os.path.join(work, name + ".png")
    SaveScreenshot(png, view, ImageResolution=[320, 240])
    rd = vtkPNGReader()
    rd.SetFileName(png)
    rd.Update()
    img = vtk_to_numpy(rd.GetOutput().GetPointData().GetScalars())
    assert img.shape[0] == 320 * 240, name + ": image size"
    background = img[0]
    drawn = np.any(img != background, axis=1).sum()
    assert drawn > 100, "%s: only %d pixels drawn" % (name, drawn)
    print("paraview: %s: %d timesteps, positions equal, %d colliders%s, %d pixels drawn"
          % (name, len(ts), len(coll),
             ", rigid bodies (%d surface triangles)" % stri.shape[0] if rigid else "", drawn))
    ResetSession()
print("paraview: ok")
sys.stdout.flush()
# ParaView 5.11 (Debian) aborts while tearing down its X render window under
# Xvfb, after everything above is done: leave without the teardown.
os._exit(0)
