out0: f32[2,3] min=-0.947132 max=0.941764 mean=-0.0847243 first=[0.766622, -0.136944, -0.947132, 0.941764, -0.787307, -0.345348] fnv1a64=062e551b1c329ed1
out1: s32[5] min=-3 max=4 mean=0.8 first=[1, 4, 4, -2, -3] fnv1a64=1a36e6af26e461df
out2: pred[4] min=1 max=1 mean=1 first=[true, true, true, true] fnv1a64=b5d0e0774c7d7499
