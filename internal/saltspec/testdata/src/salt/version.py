class SaltVersion:
    def __init__(self, name, info, released=False):
        pass


SULFUR = SaltVersion("Sulfur", info=3006, released=True)
CHLORINE = SaltVersion("Chlorine", info=3007)
