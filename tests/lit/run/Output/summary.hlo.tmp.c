out0: f32[2,3] min=-0.111471 max=0.942006 mean=0.311621 first=[0.133123, 0.491564, 0.942006, -0.111282, -0.111471, 0.525789] fnv1a64=9811378543ccadd8
out1: s32[5] min=-4 max=2 mean=-2 first=[-4, -1, -4, -3, 2] fnv1a64=0515e39b21fd4365
out2: pred[4] min=0 max=1 mean=0.5 first=[true, false, true, false] fnv1a64=ad2e3077479b3a8d
