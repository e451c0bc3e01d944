# SPDX-License-Identifier: MIT
"""MDAnalysis reads what `vsim run` writes (tests/clients/run.sh):

    python3 tests/clients/mdanalysis_h5md.py VSIM ROOT WORKDIR

A torn cloth recorded with velocities, read with MDAnalysis' H5MD reader
(convert_units=False: MDAnalysis knows no SI length unit): every frame, its
positions, velocities and time equal to h5py's, and every scalar observable
(/observables/NAME/value) in ts.data.  A file with particles and rigid bodies
(rigid dice) reads as its particles (/particles/all, the first group); a file
of rigid bodies only (rigid_stack: no /particles/all) reads as the bodies'
centres of mass (/particles/rigid, then the first group), velocities
included.  Exit 0 when all hold."""
import os
import subprocess
import sys
import warnings

import h5py
import numpy as np

warnings.simplefilter("ignore")
from MDAnalysis.coordinates.H5MD import H5MDReader  # noqa: E402

vsim, root, work = sys.argv[1:4]
h5 = os.path.join(work, "torn_mda.h5")
subprocess.run([vsim, "run", os.path.join(root, "configs/torn_cloth.yaml"), "-o", h5, "-f", "-q",
                "--frames", "30", "--set", "output.fields=[position,velocity,constraint_error]"],
               check=True)
with h5py.File(h5, "r") as f:
    pos = f["/particles/all/position/value"][:]
    vel = f["/particles/all/velocity/value"][:]
    time = f["/particles/all/position/time"][:]
    obs = {name: g["value"][:] for name, g in f["/observables"].items() if g["value"].ndim == 1}
assert {"constraint_error_max", "distance_error_rms", "penetration_max", "energy_kinetic",
        "energy_potential", "constraints_alive"} <= set(obs), sorted(obs)

r = H5MDReader(h5, convert_units=False)
assert r.n_frames == pos.shape[0], (r.n_frames, pos.shape)
assert r.n_atoms == pos.shape[1]
seen = 0
for k, ts in enumerate(r):
    assert ts.frame == k
    # MDAnalysis keeps coordinates as float32
    assert np.array_equal(ts.positions, pos[k].astype(np.float32)), "frame %d: positions" % k
    assert np.array_equal(ts.velocities, vel[k].astype(np.float32)), "frame %d: velocities" % k
    assert ts.time == time[k], "frame %d: time %r vs %r" % (k, ts.time, time[k])
    for name, v in obs.items():
        assert name in ts.data, "frame %d: no observable %s" % (k, name)
        assert ts.data[name] == v[k], "frame %d: %s" % (k, name)
    seen += 1
assert seen == pos.shape[0]
assert obs["constraints_alive"][-1] < obs["constraints_alive"][0], "nothing tore"
print("mdanalysis: %d frames of %d particles, %d observables equal to h5py's"
      % (seen, r.n_atoms, len(obs)))


# MDAnalysis reads the first group of /particles (h5py's order: all, rigid,
# rigid_surface): the particles when there are any, else the rigid centres
for name, scene, group in (("dice", "configs/rigid_dice.yaml", "all"),
                           ("stack", "configs/rigid_stack.yaml", "rigid")):
    h5 = os.path.join(work, name + "_mda.h5")
    subprocess.run([vsim, "run", os.path.join(root, scene), "-o", h5, "-f", "-q", "--frames", "10",
                    "--set", "output.fields=[position,velocity]"], check=True)
    with h5py.File(h5, "r") as f:
        assert ("/particles/all" in f) == (group == "all"), name
        pos = f["/particles/%s/position/value" % group][:]
        vel = f["/particles/%s/velocity/value" % group][:]
    r = H5MDReader(h5, convert_units=False)
    assert (r.n_frames, r.n_atoms) == pos.shape[:2], (name, r.n_frames, r.n_atoms, pos.shape)
    for k, ts in enumerate(r):
        assert np.array_equal(ts.positions, pos[k].astype(np.float32)), "%s frame %d" % (name, k)
        assert np.array_equal(ts.velocities, vel[k].astype(np.float32)), "%s frame %d" % (name, k)
    print("mdanalysis: %s: %d frames of %d %s" % (name, r.n_frames, r.n_atoms,
                                                 "particles" if group == "all" else "rigid centres"))
