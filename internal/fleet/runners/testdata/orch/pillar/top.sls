base:
  mm:
    - mm
